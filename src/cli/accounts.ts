// The operator's commands for providers that join on their own: hosts pending | approve | reject, and a host's audit.
import type { Command } from 'commander';
import type { AuditEvent, PendingHost } from './admin-client.js';
import type { CommandKit } from './command-context.js';
import { formatTable, formatTimestamp } from './format.js';

export function pendingTable(hosts: readonly PendingHost[]): string {
  if (hosts.length === 0) return 'No host waits for approval.';
  return formatTable<PendingHost>(
    [
      { header: 'SLUG', value: (h) => h.slug },
      { header: 'NAME', value: (h) => h.name },
      { header: 'DOMAIN', value: (h) => h.domain },
      { header: 'PROVED', value: (h) => formatTimestamp(h.verified_at) },
    ],
    hosts,
  );
}

export function auditTable(events: readonly AuditEvent[]): string {
  if (events.length === 0) return 'Nothing recorded yet.';
  return formatTable<AuditEvent>(
    [
      { header: 'WHEN', value: (e) => formatTimestamp(e.at) },
      { header: 'WHO', value: (e) => e.actor },
      { header: 'WHAT', value: (e) => e.action },
      { header: 'DETAIL', value: (e) => e.detail ?? '' },
    ],
    events,
  );
}

/** Adds pending, approve, reject and audit to the `hosts` command. */
export function addAccountCommands(hosts: Command, kit: CommandKit): void {
  kit
    .withJson(hosts.command('pending'))
    .description('list the hosts that proved their domain and wait for approval (REQUIRE_APPROVAL)')
    .action(async (_options: unknown, cmd: Command) => {
      const body = await kit.client(cmd).listPendingHosts();
      kit.print(cmd, body, () => pendingTable(body.hosts));
    });
  for (const decision of ['approve', 'reject'] as const) {
    kit
      .withJson(hosts.command(decision))
      .description(decision === 'approve' ? 'list a waiting host' : 'refuse a waiting host: it is suspended')
      .argument('<slug>')
      .action(async (slug: string, _options: unknown, cmd: Command) => {
        const body = await kit.client(cmd).decideHost(slug, decision);
        kit.print(cmd, body, () => `Host ${body.host.slug} is ${body.host.status}.`);
      });
  }
  kit
    .withJson(hosts.command('audit'))
    .description("a host's audit record: sign-ins, key changes, profile changes, approvals")
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await kit.client(cmd).hostAudit(slug);
      kit.print(cmd, body, () => auditTable(body.events));
    });
}
