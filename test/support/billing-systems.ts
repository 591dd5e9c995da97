// Local HTTP servers that answer as WHMCS, Blesta and HostBill do according to their public API documentation
// (the fixtures in test/connectors/fixtures.ts name the pages), so that `hostdir push --from` and
// `hostdir import` are tested over real HTTP without the vendors' software.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BLESTA_ERRORS } from '../connectors/fixtures.js';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** the body as a form (POST application/x-www-form-urlencoded) */
  form: URLSearchParams;
  body: string;
  /** the caller's address, as the billing system sees it */
  ip: string;
}

export type Handler = (request: Recorded, response: ServerResponse) => void | Promise<void>;

export interface FakeBillingSystem {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function startFakeBillingSystem(handler: Handler): Promise<FakeBillingSystem> {
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: Recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        form: new URLSearchParams(body),
        body,
        ip: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

export function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(html);
}

// ----------------------------------------------------------------------------------------------------- WHMCS

export interface WhmcsBehaviour {
  identifier: string;
  secret: string;
  /** $api_access_key of configuration.php, which lets a caller past the IP restriction */
  accessKey?: string;
  /** whether the caller's address is on the API IP Access Restriction list (default true) */
  ipAllowed?: () => boolean;
  /** the GetProducts answer */
  getProducts: () => unknown;
}

/**
 * includes/api.php as https://developers.whmcs.com/api/authentication/ and .../api/access-control/ describe it: a
 * POST with identifier and secret (or, for compatibility, username and password), restricted by IP unless the
 * access key is given; errors as {"result": "error", "message": …}.
 */
export function whmcs(behaviour: WhmcsBehaviour): Handler {
  return (request, response) => {
    if (request.path !== '/includes/api.php' || request.method !== 'POST') {
      sendHtml(response, 404, '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>');
      return;
    }
    const form = request.form;
    const accessKeyGiven = behaviour.accessKey !== undefined && form.get('accesskey') === behaviour.accessKey;
    if (!(behaviour.ipAllowed?.() ?? true) && !accessKeyGiven) {
      sendJson(response, 200, { result: 'error', message: `Invalid IP ${request.ip}` });
      return;
    }
    const identifier = form.get('identifier') ?? form.get('username');
    const secret = form.get('secret') ?? form.get('password');
    if (identifier !== behaviour.identifier || secret !== behaviour.secret) {
      sendJson(response, 200, { result: 'error', message: 'Authentication Failed' });
      return;
    }
    if (form.get('action') !== 'GetProducts') {
      sendJson(response, 200, { result: 'error', message: 'Command Not Found' });
      return;
    }
    sendJson(response, 200, behaviour.getProducts());
  };
}

// ---------------------------------------------------------------------------------------------------- Blesta

export interface BlestaBehaviour {
  user: string;
  key: string;
  packages: () => readonly Record<string, unknown>[];
  /** package_options/getByPackageId's answer for a package id (default: none) */
  options?: (packageId: string) => unknown[];
  /** the company's results per page */
  pageSize: number;
  /** a broken installation that answers every page with the first one */
  ignoresPage?: boolean;
}

/**
 * api/{model}/{method}.json as https://docs.blesta.com/5/developers/api describes it: credentials in the
 * BLESTA-API-USER and BLESTA-API-KEY headers or by Basic authentication, {"response": …} on success, the
 * documented error bodies; packages/getList pages by the company's page size and leaves out hidden packages
 * (https://source-docs.blesta.com/classes/Packages.html), packages/get answers with pricing, groups and option
 * groups, package_options/getByPackageId with the options of a package's option groups
 * (https://source-docs.blesta.com/classes/PackageOptions.html).
 */
export function blesta(behaviour: BlestaBehaviour): Handler {
  return (request, response) => {
    const basic = /^Basic (.+)$/i.exec(String(request.headers.authorization ?? ''));
    const [basicUser, basicKey] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') : [];
    const user = request.headers['blesta-api-user'] ?? basicUser;
    const key = request.headers['blesta-api-key'] ?? basicKey;
    if (user !== behaviour.user || key !== behaviour.key) {
      sendJson(response, BLESTA_ERRORS.unauthorized.status, BLESTA_ERRORS.unauthorized.body);
      return;
    }
    if (request.path === '/api/packages/getList.json') {
      const status = request.query.get('status');
      const page = behaviour.ignoresPage ? 1 : Math.max(1, Number(request.query.get('page') ?? '1'));
      const listed = behaviour
        .packages()
        .filter((p) => (status === null || p.status === status) && String(p.hidden ?? '0') !== '1')
        .slice((page - 1) * behaviour.pageSize, page * behaviour.pageSize)
        .map(({ pricing: _pricing, groups: _groups, option_groups: _optionGroups, ...rest }) => rest);
      sendJson(response, 200, { response: listed });
      return;
    }
    if (request.path === '/api/packages/get.json') {
      const found = behaviour.packages().find((p) => String(p.id) === request.query.get('package_id'));
      sendJson(response, 200, { response: found ?? false });
      return;
    }
    if (request.path === '/api/package_options/getByPackageId.json') {
      sendJson(response, 200, { response: behaviour.options?.(request.query.get('package_id') ?? '') ?? [] });
      return;
    }
    sendJson(response, BLESTA_ERRORS.notFound.status, BLESTA_ERRORS.notFound.body);
  };
}

// -------------------------------------------------------------------------------------------------- HostBill

export interface HostbillBehaviour {
  apiId: string;
  apiKey: string;
  orderPages: () => unknown;
  /** getProducts' answer for an order page id */
  products: (id: string) => unknown;
  /** getSubCategories' answer for an order page id */
  subcategories?: (id: string) => unknown;
}

/**
 * admin/api.php as https://api2.hostbillapp.com/remote.html describes it: a POST with call, api_id and api_key;
 * errors as {"success": false, "call": …, "server_time": …, "error": […]} (the documentation shows the shape; the
 * wording of the credentials error here is this fake's).
 */
export function hostbill(behaviour: HostbillBehaviour): Handler {
  return (request, response) => {
    const call = request.form.get('call') ?? '';
    const refuse = (message: string) =>
      sendJson(response, 200, { success: false, call, server_time: 1679594592, error: [message] });
    if (request.path !== '/admin/api.php' || request.method !== 'POST') {
      sendHtml(response, 404, '<html><body>Not found</body></html>');
      return;
    }
    if (request.form.get('api_id') !== behaviour.apiId || request.form.get('api_key') !== behaviour.apiKey) {
      refuse('API authentication failed');
      return;
    }
    const id = request.form.get('id') ?? '';
    if (call === 'getOrderPages') sendJson(response, 200, behaviour.orderPages());
    else if (call === 'getProducts') sendJson(response, 200, behaviour.products(id));
    else if (call === 'getSubCategories' && behaviour.subcategories)
      sendJson(response, 200, behaviour.subcategories(id));
    else refuse('Wrong parameter');
  };
}
