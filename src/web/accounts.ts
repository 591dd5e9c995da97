// The pages of providers' accounts outside the dashboard: join, sign in, a mailed link, and the messages between.
import { html, Html } from './html.js';
import { layout } from './layout.js';

export interface FieldError {
  field: string;
  message: string;
}

/** Every form posts its CSRF token with it. */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function errorSummary(errors: readonly FieldError[]): Html | '' {
  if (errors.length === 0) return '';
  return html`<div class="problem" role="alert" id="errors"><h2>${errors.length === 1 ? 'One thing to fix' : `${errors.length} things to fix`}</h2><ul>${errors.map(
    (error) => html`<li><a href="#${error.field}">${error.message}</a></li>`,
  )}</ul></div>`;
}

function field(
  id: string,
  label: string,
  options: { type?: string; value?: string; hint?: string; errors?: readonly FieldError[]; autocomplete?: string },
): Html {
  const error = options.errors?.find((e) => e.field === id);
  // Attributes made here from the field's own id only.
  const described = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<p class="form-field"><label for="${id}">${label}</label>
${options.hint ? html`<span class="muted" id="${id}-hint">${options.hint}</span>` : ''}
${error ? html`<span class="field-error" id="${id}-error">${error.message}</span>` : ''}
<input id="${id}" name="${id}" type="${options.type ?? 'text'}" value="${options.value ?? ''}" required${new Html(
    described ? ` aria-describedby="${described}"` : '',
  )}${new Html(error ? ' aria-invalid="true"' : '')}${new Html(
    options.autocomplete ? ` autocomplete="${options.autocomplete}"` : '',
  )}></p>`;
}

const FORM_STYLE = html`<style>.form-field{display:flex;flex-direction:column;gap:.2rem;max-width:32rem}.field-error{color:#8a1c1c;font-weight:600}.account{max-width:40rem}</style>`;

export function joinPage(csrf: string, values: Record<string, string> = {}, errors: readonly FieldError[] = []): Html {
  return layout(
    {
      title: 'List your hosting company',
      description: 'Join the directory: your catalogue, synced from your billing system.',
    },
    html`${FORM_STYLE}<div class="account"><h1>List your hosting company</h1>
<p>Sign up with your work address and your company's website. We mail you a link to confirm the address; then you prove
the domain is yours by publishing a token, create an API key, and sync your catalogue from your billing system.</p>
${errorSummary(errors)}
<form method="post" action="/providers/join" novalidate>
${csrfField(csrf)}
${field('email', 'Your email address', { type: 'email', value: values.email ?? '', errors, autocomplete: 'email' })}
${field('name', "Your company's name", { value: values.name ?? '', errors, hint: 'As visitors will see it, e.g. Acme Hosting', autocomplete: 'organization' })}
${field('website', "Your company's website", { value: values.website ?? '', errors, hint: 'Its domain, e.g. acme-hosting.example: you will prove it is yours', autocomplete: 'url' })}
<p><button type="submit">Sign up</button></p>
</form>
<p>Already listed? <a href="/providers/sign-in">Sign in</a>.</p></div>`,
  );
}

export function signInPage(csrf: string, email = '', errors: readonly FieldError[] = []): Html {
  return layout(
    { title: 'Sign in', description: "Sign in to your provider's dashboard with a link we mail you." },
    html`${FORM_STYLE}<div class="account"><h1>Sign in</h1>
<p>No password: we mail you a link that signs you in once, within 30 minutes.</p>
${errorSummary(errors)}
<form method="post" action="/providers/sign-in" novalidate>
${csrfField(csrf)}
${field('email', 'Your email address', { type: 'email', value: email, errors, autocomplete: 'email' })}
<p><button type="submit">Mail me a sign-in link</button></p>
</form>
<p>New here? <a href="/providers/join">List your hosting company</a>.</p></div>`,
  );
}

export function checkMailPage(email: string, why: 'confirm' | 'sign-in'): Html {
  return layout(
    { title: 'Check your mail' },
    html`<div class="account"><h1>Check your mail</h1>
<p>${why === 'confirm' ? html`We sent a link to <strong>${email}</strong> to confirm your address.` : html`If <strong>${email}</strong> signs in for a provider, we sent it a sign-in link.`}
The link works once, for 30 minutes.</p>
<p>Nothing came? Look in your spam folder, or <a href="/providers/sign-in">ask for another link</a>.</p></div>`,
  );
}

export function linkPage(csrf: string, token: string): Html {
  return layout(
    { title: 'Sign in' },
    html`<div class="account"><h1>Continue to your dashboard</h1>
<p>This link signs you in once. Continue to confirm your address and open your provider's dashboard.</p>
<form method="post" action="/providers/link">
${csrfField(csrf)}
<input type="hidden" name="token" value="${token}">
<p><button type="submit">Continue</button></p>
</form></div>`,
  );
}

/** A page that says what went wrong and where to go next. */
export function messagePage(title: string, message: string, next: { href: string; label: string }): Html {
  return layout(
    { title },
    html`<div class="account"><h1>${title}</h1><p>${message}</p><p><a href="${next.href}">${next.label}</a></p></div>`,
  );
}
