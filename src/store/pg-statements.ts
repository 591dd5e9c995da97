// Statements as the pg adapter sends them, with pg's public API only: several in one simple query (one message, one
// round trip, answered once and stopped at the first error), their values written in as literals; and, on a
// connection straight to PostgreSQL, those worth keeping prepared kept with SQL's own PREPARE once per connection and
// run with EXECUTE afterwards, in the same simple queries.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { QueryResult, Row, Statement } from './db.js';

/**
 * A parameter as a SQL literal. Written as a quoted string of unknown type, the way the extended protocol sends
 * parameters as text, so that PostgreSQL infers each one's type from its place exactly as it would for $n. A Buffer
 * is written as bytea's hex text.
 */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `'${String(value)}'`;
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (Buffer.isBuffer(value)) return quote(`\\x${value.toString('hex')}`);
  if (Array.isArray(value)) return quote(arrayText(value));
  throw new TypeError(`cannot write a ${typeof value} as a SQL literal`);
}

/** A list of plain values as PostgreSQL reads an array's text, as pg sends it: `{"a","b \\"c\\"",NULL}`. */
function arrayText(values: readonly unknown[]): string {
  const element = (value: unknown) => {
    if (value === null || value === undefined) return 'NULL';
    if (
      typeof value !== 'string' &&
      typeof value !== 'number' &&
      typeof value !== 'bigint' &&
      typeof value !== 'boolean'
    ) {
      throw new TypeError(`cannot write a ${typeof value} in an array literal`);
    }
    return `"${String(value).replace(/[\\"]/g, '\\$&')}"`;
  };
  return `{${values.map(element).join(',')}}`;
}

/**
 * A string literal, as pg's escapeLiteral writes it (quotes doubled; with backslashes, an E'' string with them
 * doubled, read the same whatever standard_conforming_strings says), but with native replaces: the run's record
 * of a large sync is hundreds of kilobytes.
 */
function quote(value: string): string {
  // A NUL would end the query's text on the wire, and what follows it would be read as the protocol's next message:
  // refused as PostgreSQL refuses it as a parameter (22021), before anything is sent.
  if (value.includes('\u0000')) {
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
  }
  const quoted = value.replaceAll("'", "''");
  return value.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/** A quoted string (left as it is) or a $n placeholder (replaced by its value). */
const LITERAL_OR_PLACEHOLDER = /'(?:[^']|'')*'|\$(\d+)/g;

/** One statement with its parameters written in. */
function withValues({ sql, params = [] }: Statement): string {
  return sql.replace(LITERAL_OR_PLACEHOLDER, (match, n: string | undefined) => {
    if (n === undefined) return match;
    const k = Number(n) - 1;
    if (k >= params.length) throw new RangeError(`$${n} has no value`);
    return literal(params[k]);
  });
}

/** Statements with their parameters written in, joined for the simple query protocol: one message, one round trip. */
export function simpleQueryText(statements: readonly Statement[]): string {
  return statements.map(withValues).join(';\n');
}

/** Runs `text` as one simple query (pg sends a text without parameters so) and gives each statement's result. */
export async function simpleQuery(client: pg.ClientBase, text: string): Promise<QueryResult<Row>[]> {
  const results = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
  return (Array.isArray(results) ? results : [results]).map((result) => ({
    rows: result.rows as Row[],
    rowCount: result.rowCount ?? 0,
  }));
}

/**
 * The statements kept prepared on one connection straight to PostgreSQL. PREPARE outlives a transaction rolled back,
 * so a PREPARE that failed leaves those sent with it in doubt: then `reset`, and the connection's next PREPAREs start
 * with DEALLOCATE ALL.
 */
export interface PreparedStatements {
  /** the names PostgreSQL holds */
  held: Set<string>;
  reset: boolean;
}

export function preparedStatements(): PreparedStatements {
  return { held: new Set(), reset: false };
}

/**
 * Statements kept prepared per connection. hostdir's prepared statements are a few dozen templates; the bound keeps a
 * statement built from data (should one ever be asked for prepared) from growing the server's memory: past it,
 * statements are sent with their values written in, parsed and planned each time.
 */
const PREPARED_PER_CONNECTION_MAX = 200;

/** A prepared statement's name: the digest of its text, so that the same SQL has the same name on every connection. */
const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    // Lower case: PostgreSQL folds an unquoted name.
    name = `hd_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
    // The templates are few: a map that somehow grew past the bound is started afresh rather than grown.
    if (statementNames.size >= PREPARED_PER_CONNECTION_MAX * 5) statementNames.clear();
    statementNames.set(sql, name);
  }
  return name;
}

/** What PREPARE takes (and is planned): transaction control, settings, locks and DDL are sent as they are. */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|VALUES|TABLE|MERGE)\b/i;

export interface PreparedBatch {
  /** PREPAREs of the statements the connection does not hold yet, as one simple query; null when it holds them all */
  prepare: string | null;
  /** the statements as one simple query: EXECUTE for those kept prepared, the others with their values written in */
  run: string;
}

/**
 * The texts that run `statements` on a connection holding `prepared`, counted as held from now on (the connection
 * runs its queries in the order they are asked for). Nothing is counted when a value cannot be written.
 */
export function preparedBatch(prepared: PreparedStatements, statements: readonly Statement[]): PreparedBatch {
  const preparing = new Map<string, string>();
  const run = statements.map((statement) => {
    const held = !prepared.reset && prepared.held.has(statementName(statement.sql));
    const room = (prepared.reset ? 0 : prepared.held.size) + preparing.size < PREPARED_PER_CONNECTION_MAX;
    if (!PREPARABLE.test(statement.sql) || (!held && !room)) return withValues(statement);
    const name = statementName(statement.sql);
    if (!held) preparing.set(name, `PREPARE ${name} AS ${statement.sql}`);
    const values = (statement.params ?? []).map(literal);
    return values.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${values.join(', ')})`;
  });
  if (preparing.size === 0) return { prepare: null, run: run.join(';\n') };
  const prepare = [...(prepared.reset ? ['DEALLOCATE ALL'] : []), ...preparing.values()].join(';\n');
  if (prepared.reset) prepared.held.clear();
  prepared.reset = false;
  for (const name of preparing.keys()) prepared.held.add(name);
  return { prepare, run: run.join(';\n') };
}

/**
 * Runs `statements` on `client`, keeping those PREPARE takes prepared: any it does not hold yet are prepared first, in
 * a query of their own, so that PostgreSQL keeps their text alone (a prepared statement keeps the whole query string
 * it came in, values and all); then the statements, in one simple query.
 */
export async function runPrepared(
  client: pg.ClientBase,
  prepared: PreparedStatements,
  statements: readonly Statement[],
): Promise<QueryResult<Row>[]> {
  const { prepare, run } = preparedBatch(prepared, statements);
  if (prepare !== null) {
    try {
      await client.query(prepare);
    } catch (error) {
      prepared.held.clear();
      prepared.reset = true;
      throw error;
    }
  }
  return simpleQuery(client, run);
}
