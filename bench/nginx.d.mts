// Types of bench/nginx.mjs, for the tests that start nginx in front of hostdir.
export declare const NGINX: string;
export declare const NGINX_CONFIG: string;

export interface RunningNginx {
  url: string;
  port: number;
  /** the master's (its workers run under it) */
  pid: number;
  dir: string;
  /** nginx's error log and output */
  log(): Promise<string>;
  /** the access log, in the configuration's hostdir format */
  accessLog(): Promise<string>;
  stop(): Promise<void>;
}

export declare function hostdirConfig(options: {
  upstreams: string[];
  port: number;
  dir: string;
  extra?: string;
}): Promise<string>;
export declare function startNginx(options: {
  upstreams: string[];
  workers?: number;
  extra?: string;
}): Promise<RunningNginx>;
