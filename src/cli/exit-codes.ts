// The hostdir command's exit codes (docs/cli.md, "Exit codes"): the same for every command.
export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3, rateLimited: 4, billingSystem: 5 } as const;
