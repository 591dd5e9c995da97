// The operator's token: ADMIN_TOKEN if set, else one generated at first start and kept in DATA_DIR/admin-token.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.js';

export function adminTokenPath(dataDir: string): string {
  return path.join(dataDir, 'admin-token');
}

export async function resolveAdminToken(
  config: Config,
): Promise<{ token: string; source: 'env' | 'file' | 'generated' }> {
  if (config.adminToken) return { token: config.adminToken, source: 'env' };
  const file = adminTokenPath(config.dataDir);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) {
      await chmod(file, 0o600);
      return { token, source: 'file' };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(config.dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString('hex')}`;
  try {
    // 'wx': when several processes start at once, exactly one writes the file and the others read it.
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveAdminToken(config);
    throw error;
  }
  return { token, source: 'generated' };
}
