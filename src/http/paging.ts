// Cursor paging: cursors are opaque to clients (base64url of the last id seen).
import { idPattern } from '../catalog/ids.js';
import { Problem } from './problems.js';

const ID = new RegExp(idPattern());

export function encodeCursor(lastId: string | null, more: boolean): string | null {
  return more && lastId ? Buffer.from(lastId, 'utf8').toString('base64url') : null;
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === '') return null;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!ID.test(id)) {
    throw new Problem('VALIDATION_FAILED', 'the cursor is not one this server issued', {
      errors: [
        { parameter: 'cursor', code: 'invalid_cursor', detail: 'pass next_cursor from a previous page unchanged' },
      ],
    });
  }
  return id;
}
