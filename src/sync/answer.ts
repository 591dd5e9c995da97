// The answer to a sync, and to GET /api/v1/sync/runs/{sync_id}: one shape, its schema (the OpenAPI document's and the
// type's), and the pure functions that build it from a plan or from a recorded run.
import { Type, type Static } from '@sinclair/typebox';
import { idPattern } from '../catalog/ids.js';
import { PRODUCT_ACTIONS, type SyncPlan } from '../catalog/types.js';
import type { RunActions, SyncRunRecord } from '../store/sync-runs.js';

const Count = Type.Integer({ minimum: 0 });

export const SyncSummarySchema = Type.Object(
  { received: Count, created: Count, updated: Count, unchanged: Count, reactivated: Count, deactivated: Count },
  { $id: 'SyncSummary', additionalProperties: false },
);

const ProductId = Type.String({ pattern: idPattern('prd') });

export const SyncAnswerSchema = Type.Object(
  {
    sync_id: Type.String({ pattern: idPattern('syn') }),
    dry_run: Type.Boolean(),
    host: Type.String({ description: "the provider's slug" }),
    summary: Type.Ref(SyncSummarySchema),
    products: Type.Array(
      Type.Object(
        {
          external_id: Type.String(),
          id: ProductId,
          // A plain string enum, not a union of literals: a validator would test every entry of a 50 000-product
          // answer against each branch of an anyOf.
          action: Type.Unsafe<(typeof PRODUCT_ACTIONS)[number]>({ type: 'string', enum: [...PRODUCT_ACTIONS] }),
        },
        { additionalProperties: false },
      ),
      { description: "one entry per product of the request, in the request's order" },
    ),
    deactivated: Type.Array(
      Type.Object({ external_id: Type.String(), id: ProductId }, { additionalProperties: false }),
      {
        description: 'active products the request left out',
      },
    ),
    applied_at: Type.String({ format: 'date-time' }),
    duration_ms: Count,
  },
  {
    $id: 'SyncAnswer',
    additionalProperties: false,
    description: 'what a sync did (or, as a dry run, would do) to each product',
  },
);

export type SyncAnswer = Static<typeof SyncAnswerSchema>;

/** The answer to a sync that ran: its plan, as recorded. Fields in the schema's order: the text is JSON.stringify's. */
export function syncAnswer(
  sync: { syncId: string; dryRun: boolean; host: string },
  plan: SyncPlan,
  recorded: { appliedAt: string; durationMs: number },
): SyncAnswer {
  return {
    sync_id: sync.syncId,
    dry_run: sync.dryRun,
    host: sync.host,
    summary: plan.summary,
    products: plan.products.map((p) => ({ external_id: p.external_id, id: p.id, action: p.action })),
    deactivated: plan.deactivated,
    applied_at: recorded.appliedAt,
    duration_ms: recorded.durationMs,
  };
}

/** The same answer, from the run's record. */
export function answerOfRun(host: string, run: SyncRunRecord & RunActions): SyncAnswer {
  const { sync_id, dry_run, summary, products, deactivated, applied_at, duration_ms } = run;
  return { sync_id, dry_run, host, summary, products, deactivated, applied_at, duration_ms };
}
