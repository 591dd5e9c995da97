// The operator's side of providers that join on their own: who waits for approval, approving or rejecting them,
// and a provider's audit record. Under /admin/v1, with the admin token, like the rest of the admin API.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { decideApproval, listAudit, listPendingApprovals, recordAudit } from '../../store/accounts.js';
import { findHostBySlug } from '../../store/hosts.js';
import { checkAdminToken } from '../auth.js';
import type { AppContext } from '../context.js';
import { Problem } from '../problems.js';

const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });

export const adminAccountRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { db } = context;
  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => checkAdminToken(context.adminToken, request));

      admin.get('/approvals', async () => ({ hosts: await listPendingApprovals(db) }));

      for (const [action, approve] of [
        ['approve', true],
        ['reject', false],
      ] as const) {
        admin.post<{ Params: Static<typeof SlugParams> }>(
          `/hosts/:slug/${action}`,
          { schema: { params: SlugParams } },
          async (request) => {
            const decided = await decideApproval(db, request.params.slug, approve);
            if (!decided) {
              const host = await findHostBySlug(db, request.params.slug);
              if (!host) throw new Problem('NOT_FOUND', `no host with slug "${request.params.slug}"`);
              throw new Problem('CONFLICT', `the host "${request.params.slug}" is not waiting for approval`);
            }
            await recordAudit(db, decided.hostId, { actor: 'operator', action: approve ? 'approved' : 'rejected' });
            return { host: { slug: request.params.slug, status: decided.status } };
          },
        );
      }

      admin.get<{ Params: Static<typeof SlugParams> }>(
        '/hosts/:slug/audit',
        { schema: { params: SlugParams } },
        async (request) => {
          const host = await findHostBySlug(db, request.params.slug);
          if (!host) throw new Problem('NOT_FOUND', `no host with slug "${request.params.slug}"`);
          return { events: await listAudit(db, host.id) };
        },
      );
    },
    { prefix: '/admin/v1' },
  );
};
