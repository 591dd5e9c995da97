// The watch forms on the directory's pages (plain POST forms: no script needed) and the pages they lead to:
// "check your inbox", the confirmation and the unsubscribe pages, each with its button.
import { html, type Html } from './html.js';
import { layout } from './layout.js';

function emailField(id: string): Html {
  return html`<label for="${id}">Your email address</label> <input id="${id}" type="email" name="email" required maxlength="254" autocomplete="email">`;
}

/** "Watch this search": the search is the query of the page's Atom feed (the API's form of the page's filters). */
export function watchSearchForm(feedHref: string): Html | '' {
  const search = feedHref.split('?')[1] ?? '';
  if (!feedHref) return '';
  return html`<form class="watch" action="/watches" method="post" aria-label="Watch this search">
<h2>Watch this search</h2>
<p class="muted">We email you when a plan newly matches it, gets cheaper or is back in stock: at most one message an hour, and one click stops them.</p>
<input type="hidden" name="search" value="${search}">
${emailField('watch-search-email')} <button type="submit">Watch this search</button>
</form>`;
}

export function watchProductForm(productId: string): Html {
  return html`<form class="watch" action="/watches" method="post" aria-label="Watch this plan">
<h2>Watch this plan</h2>
<p class="muted">We email you when it gets cheaper, is back in stock or is listed again.</p>
<input type="hidden" name="product_id" value="${productId}">
${emailField('watch-plan-email')} <button type="submit">Watch this plan</button>
</form>`;
}

function page(title: string, body: Html): Html {
  return layout({ title, description: 'Watches of the directory of hosting plans.' }, body);
}

export function watchRequestedPage(email: string): Html {
  return page(
    'Check your inbox',
    html`<h1>Check your inbox</h1><p>We sent a confirmation link to <strong>${email}</strong>. Nothing else is sent to that address until you open it and confirm; the link works for 24 hours, after which the address is deleted.</p><p><a href="/">Back to the directory</a></p>`,
  );
}

export function confirmWatchPage(token: string, watched: string): Html {
  return page(
    'Confirm your watch',
    html`<h1>Confirm your watch</h1><p>You asked to be told about changes to ${watched}.</p>
<form action="/watches/confirm" method="post"><input type="hidden" name="token" value="${token}"><button type="submit">Confirm</button></form>`,
  );
}

export function watchConfirmedPage(watched: string, unsubscribeHref: string): Html {
  return page(
    'Watch confirmed',
    html`<h1>Watch confirmed</h1><p>We will email you about changes to ${watched}: the first one within a minute, then at most one message an hour.</p><p>Every message has a link that stops them; <a href="${unsubscribeHref}">this one</a> does too.</p><p><a href="/">Back to the directory</a></p>`,
  );
}

export function unsubscribePage(token: string, watched: string): Html {
  return page(
    'Stop these messages',
    html`<h1>Stop these messages</h1><p>Stop the messages about ${watched}? Your address is deleted with the watch.</p>
<form action="/watches/unsubscribe" method="post"><input type="hidden" name="token" value="${token}"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function unsubscribedPage(): Html {
  return page(
    'Unsubscribed',
    html`<h1>Unsubscribed</h1><p>The watch is deleted, and your address with it. No more messages will come from it.</p><p><a href="/">Back to the directory</a></p>`,
  );
}

export function watchProblemPage(title: string, what: string): Html {
  return page(title, html`<h1>${title}</h1><p>${what}</p><p><a href="/">Back to the directory</a></p>`);
}
