// Types of bench/support.mjs, for the tests that use it.
import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';

export declare function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T>;
export declare function databaseUrlOf(serverUrl: string | URL, name: string): string;
export declare function freePort(): Promise<number>;
export declare function stopProcess(child: ChildProcess, graceMs?: number): Promise<void>;
export declare function cpuMs(pid: number): Promise<number>;
export declare function postgresCpuReading(): Promise<Map<string, number>>;
export declare function postgresCpuBetween(before: Map<string, number>, after: Map<string, number>): number;
export declare function treeCpuMs(pid: number): Promise<number>;
export declare function serverEnvironment(): Record<string, string>;
export declare function applyDatabaseSettings(url: string): Promise<void>;
export declare function serverArguments(main?: string, env?: Record<string, string>): string[];

export interface RunningHostdir {
  url: string;
  port: number;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}
export declare function startHostdir(
  databaseUrl: string,
  env?: Record<string, string>,
  main?: string,
): Promise<RunningHostdir>;
export declare function writeLastRun(
  name: string,
  run: { command: string; database?: string; tables: string[][][] },
): Promise<void>;
export declare function buildBaseline(
  ref: string,
  log?: (message: string) => void,
): Promise<{ sha: string; dir: string; main: string; cleanup(): Promise<void> }>;
