// HTML templates as tagged template literals: every interpolated value is escaped unless it is already Html.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// The five, and the control characters no page shows (tab and line breaks stay: descriptions keep their lines).
const SPECIAL = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const SPECIALS = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function escapeHtml(text: string): string {
  // Most values hold none of them: looking is cheaper than replacing.
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ENTITIES[c] ?? '') : text;
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let index = 0; index < values.length; index++) out += render(values[index]) + (strings[index + 1] ?? '');
  return new Html(out);
}

/** A query string from the given parameters, leaving out empty ones. */
export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
