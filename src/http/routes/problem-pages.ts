// Each problem type URI answers GET with a short page on what the error means and what to do.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { PROBLEM_BASE, PROBLEM_TYPES, Problem } from '../problems.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const problemPageRoutes: FastifyPluginAsync<AppContext> = async (app) => {
  app.get<{ Params: { slug: string } }>(`${PROBLEM_BASE}/:slug`, async (request, reply) => {
    const entry = Object.entries(PROBLEM_TYPES).find(([, type]) => type.slug === request.params.slug);
    if (!entry) throw new Problem('NOT_FOUND', `no problem type "${request.params.slug}"`);
    const [code, type] = entry;
    const page = {
      type: `${PROBLEM_BASE}/${type.slug}`,
      code,
      status: type.status,
      title: type.title,
      description: type.about,
    };
    if (String(request.headers.accept ?? '').includes('application/json')) return page;
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=3600');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(type.title)} — hostdir</title></head>
<body><main><h1>${type.status} ${escapeHtml(type.title)}</h1>
<p>Code: <code>${code}</code></p><p>${escapeHtml(type.about)}</p></main></body></html>`;
  });
};
