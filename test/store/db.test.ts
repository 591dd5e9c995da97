// Which database errors mean "unreachable right now" (503) rather than a bug (500).
import { describe, expect, it } from 'vitest';
import { CONFLICT_RETRIES, DatabaseUnavailableError, isUnavailable, retryingConflicts } from '../../src/store/db.js';

function withCode(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isUnavailable', () => {
  // Each of these was seen from pg while PostgreSQL was cut off, stalled or stopping.
  it.each([
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET', 'read ECONNRESET')],
    ['a socket closed mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a query that got no answer', new Error('Query read timeout')],
    ['a client whose connection broke', new Error('Client has encountered a connection error and is not queryable')],
    ['a pool being closed', new Error('Cannot use a pool after calling end on the pool')],
    ['statement_timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['an administrator shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['a connection exception', withCode('08006', 'connection failure')],
    ['an unreachable network', withCode('ENETUNREACH')],
    ['the adapter’s own error', new DatabaseUnavailableError('down')],
  ])('%s', (_, error) => {
    expect(isUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', withCode('42601', 'syntax error at or near "SELEC"')],
    ['a lock timeout (answered 429 by the sync)', withCode('55P03', 'canceling statement due to lock timeout')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error at all', 'down'],
  ])('not %s', (_, error) => {
    expect(isUnavailable(error)).toBe(false);
  });
});

describe('retryingConflicts', () => {
  const noPause = () => 0;

  it.each(['40P01', '40001'])('runs the work again after %s, and answers what the retry did', async (code) => {
    let runs = 0;
    const result = await retryingConflicts(async () => {
      runs++;
      if (runs < 3) throw withCode(code, 'deadlock detected');
      return 'committed';
    }, noPause);
    expect(result).toBe('committed');
    expect(runs).toBe(3);
  });

  it(`gives the conflict up after ${CONFLICT_RETRIES} retries`, async () => {
    let runs = 0;
    const work = retryingConflicts(async () => {
      runs++;
      throw withCode('40P01', 'deadlock detected');
    }, noPause);
    await expect(work).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(CONFLICT_RETRIES + 1);
  });

  it('never runs work again for any other error', async () => {
    let runs = 0;
    const work = retryingConflicts(async () => {
      runs++;
      throw withCode('23505', 'duplicate key value violates unique constraint');
    }, noPause);
    await expect(work).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
  });
});
