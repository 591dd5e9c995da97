// A provider's own profile, with its API key: website, description, country and the order-link template.
import type { FastifyPluginAsync } from 'fastify';
import { findHostById, updateHostProfile } from '../../store/hosts.js';
import { authenticateProvider } from '../auth.js';
import type { AppContext } from '../context.js';
import {
  checkedProfileChange,
  ProfileAnswer,
  ProfileChangeBody,
  profileOf,
  refuseUnknownProfileFields,
} from '../profile-schema.js';
import { Problem } from '../problems.js';
import { ALWAYS, json, problem, PROVIDER_AUTH, PROVIDER_SECURITY } from '../schemas.js';

export const profileRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { db } = context;
  app.addHook('onRequest', async (request) => {
    request.provider = await authenticateProvider(db, request);
  });

  app.get(
    '/api/v1/profile',
    {
      schema: {
        operationId: 'getProfile',
        summary: "The provider's profile as the directory shows it",
        tags: ['profile'],
        security: PROVIDER_SECURITY,
        response: { 200: json('the profile', ProfileAnswer), ...PROVIDER_AUTH, ...ALWAYS },
      },
    },
    async (request) => {
      const host = await findHostById(db, request.provider!.hostId);
      if (!host) throw new Problem('NOT_FOUND', 'the host of this key is gone');
      return { profile: profileOf(host) };
    },
  );

  app.patch<{ Body: ProfileChangeBody }>(
    '/api/v1/profile',
    {
      schema: {
        operationId: 'updateProfile',
        summary: "Changes the provider's profile",
        description:
          'Fields left out are kept; null clears one. URLs must be https:// without credentials; a refused value changes nothing. ' +
          "Products get an order link (order_url) from order_url_template; the host's page links to website.",
        tags: ['profile'],
        security: PROVIDER_SECURITY,
        body: ProfileChangeBody,
        response: {
          200: json('the profile as changed', ProfileAnswer),
          ...PROVIDER_AUTH,
          415: problem(['UNSUPPORTED_MEDIA_TYPE']),
          422: problem(['VALIDATION_FAILED']),
          ...ALWAYS,
        },
      },
      preValidation: refuseUnknownProfileFields,
    },
    async (request) => {
      const host = await updateHostProfile(db, { id: request.provider!.hostId }, checkedProfileChange(request.body));
      if (!host) throw new Problem('NOT_FOUND', 'the host of this key is gone');
      return { profile: profileOf(host) };
    },
  );
};
