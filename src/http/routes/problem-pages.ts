// Each problem type URI answers GET with a short page on what the error means and what to do.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { html } from '../../web/html.js';
import type { AppContext } from '../context.js';
import { publicBaseUrl } from '../public-url.js';
import { PROBLEM_BASE, PROBLEM_TYPES, Problem } from '../problems.js';
import { ALWAYS, HEADERS, problem, ProblemPage } from '../schemas.js';

const PageParams = Type.Object({
  slug: Type.String({ maxLength: 100, description: "the last segment of a problem's type" }),
});

const schema = {
  operationId: 'getProblemPage',
  summary: 'A page about one problem type',
  description: 'What the problem means and what to do: HTML, or JSON when Accept names application/json.',
  tags: ['public'],
  security: [],
  params: PageParams,
  response: {
    200: {
      description: 'the page',
      headers: { 'x-request-id': HEADERS['x-request-id'] },
      content: {
        'application/json': { schema: Type.Ref(ProblemPage) },
        'text/html': { schema: Type.String() },
      },
    },
    404: problem(['NOT_FOUND']),
    ...ALWAYS,
  },
};

export const problemPageRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  app.get<{ Params: { slug: string } }>(`${PROBLEM_BASE}/:slug`, { schema }, async (request, reply) => {
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
    reply.type('text/html; charset=utf-8');
    return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${type.title} — hostdir</title>
<meta name="description" content="${`What the hostdir API's ${type.status} ${code} problem means, and what to do about it.`}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="canonical" href="${publicBaseUrl(context.config, request)}${page.type}"></head>
<body><main><h1>${type.status} ${type.title}</h1>
<p>Code: <code>${code}</code></p><p>${type.about}</p></main></body></html>`.value;
  });
};
