// CSV (RFC 4180): fields separated by commas, records by CRLF, a field quoted when it holds a comma, a quote or a
// line break, quotes doubled. Text that a spreadsheet would read as a formula is defused.

export const CSV_TYPE = 'text/csv; charset=utf-8; header=present';

/** A cell a spreadsheet would take for a formula (=, +, -, @, or a tab or CR before one) starts with a quote mark. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell: a leading formula character is made text by a ' (OWASP), then RFC 4180 quoting. */
export function csvText(value: string | null): string {
  if (value === null) return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A number cell, written as JavaScript writes it (never a formula: prices are not negative). */
export function csvNumber(value: number | null): string {
  return value === null ? '' : String(value);
}

export function csvRecord(cells: readonly string[]): string {
  return cells.join(',') + '\r\n';
}
