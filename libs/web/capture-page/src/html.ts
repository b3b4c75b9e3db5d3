/**
 * The hosted capture page's HTML (docs/capture.md): one document whose screens the browser script shows one at a
 * time, and the pages that say a link cannot be used. No inline script or style anywhere (the CSP allows
 * neither); the client secret reaches the script through a <meta> element. Written with the `html` tag of
 * `@verity/html`: every value put into the markup is escaped.
 */
import { html, pageHead, type Html } from '@verity/html';
import { assetUrl } from './assets.js';

/**
 * Asset links are relative: the page lives at `<base>/verify/<secret>`, so `assets/…` is `<base>/verify/assets/…`
 * and `../v1/…` (in the script) is `<base>/v1/…`, whatever path the region is served under.
 */
function head(title: string, withScript: boolean, extraMeta: readonly Html[] = []): Html {
  return pageHead({
    title,
    referrer: 'no-referrer',
    meta: [html`<meta name="robots" content="noindex, nofollow">`, html`<meta name="color-scheme" content="light">`, ...extraMeta],
    links: [
      html`<link rel="icon" href="${assetUrl('icon.svg')}" type="image/svg+xml">`,
      html`<link rel="stylesheet" href="${assetUrl('page.css')}">`,
      ...(withScript ? [html`<script type="module" src="${assetUrl('capture.js')}"></script>`] : []),
    ],
  });
}

const BAR = html`<header class="bar">
  <p class="brand"><img src="${assetUrl('icon.svg')}" alt="" width="24" height="24"> Identity check</p>
  <p class="progress" id="progress" hidden></p>
</header>`;

const SKIP = html`<p class="aside"><button type="button" class="link" data-action="skip">I can’t do this now</button></p>`;

/** The flow: every screen is here, hidden but the first; the script shows one at a time and fills in the words. */
export function capturePage(clientSecret: string): string {
  return html`${head('Verify your identity', true, [html`<meta name="capture-secret" content="${clientSecret}">`])}
<body>
${BAR}
<main id="main">
<div id="status" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>

<section class="screen" id="screen-loading" aria-labelledby="loading-title">
  <h1 id="loading-title" tabindex="-1">Loading…</h1>
  <div class="spinner" aria-hidden="true"></div>
  <noscript><p class="notice">This page needs JavaScript. Please turn it on, or open the link in another browser.</p></noscript>
</section>

<section class="screen" id="screen-consent" aria-labelledby="consent-title" hidden>
  <h1 id="consent-title" tabindex="-1">Let’s check your identity</h1>
  <p class="lead" id="consent-lead">It takes about 3 minutes.</p>
  <p>You will need:</p>
  <ul class="needs">
    <li><img src="${assetUrl('document.svg')}" alt="" width="40" height="40"> Your passport, identity card or driving licence</li>
    <li id="consent-selfie"><img src="${assetUrl('face.svg')}" alt="" width="40" height="40"> A photo of your face</li>
    <li><img src="${assetUrl('light.svg')}" alt="" width="40" height="40"> A well-lit place</li>
  </ul>
  <p class="small">We use your photos only to check that your document is real and that it belongs to you. By pressing “I agree” you allow this.</p>
  <div class="actions">
    <button type="button" class="primary" data-action="consent" id="consent-button">I agree, start</button>
  </div>
  ${SKIP}
</section>

<section class="screen" id="screen-document-type" aria-labelledby="document-type-title" hidden>
  <h1 id="document-type-title" tabindex="-1">Which document will you use?</h1>
  <p class="lead">Choose one. It must be valid, not expired.</p>
  <div class="choices">
    <button type="button" class="choice" data-document="passport"><img src="${assetUrl('passport.svg')}" alt="" width="48" height="48"><span>Passport</span></button>
    <button type="button" class="choice" data-document="identity_card"><img src="${assetUrl('card.svg')}" alt="" width="48" height="48"><span>Identity card</span></button>
    <button type="button" class="choice" data-document="driving_licence"><img src="${assetUrl('licence.svg')}" alt="" width="48" height="48"><span>Driving licence</span></button>
  </div>
  ${SKIP}
</section>

<section class="screen" id="screen-camera" aria-labelledby="camera-title" hidden>
  <h1 id="camera-title" tabindex="-1">Photo</h1>
  <p class="lead" id="camera-hint"></p>
  <div class="viewfinder" id="viewfinder" data-shape="document">
    <video id="video" playsinline muted autoplay aria-label="Camera preview"></video>
    <div class="guide" id="guide" aria-hidden="true"></div>
    <p class="viewfinder-note" id="camera-wait">Starting the camera…</p>
    <p class="face-guidance" id="face-guidance" hidden></p>
  </div>
  <p class="notice" id="camera-problem" hidden></p>
  <div class="actions">
    <button type="button" class="primary" data-action="shoot" id="shoot-button" disabled>Take photo</button>
    <button type="button" class="primary" data-action="camera-retry" id="camera-retry" hidden>Try the camera again</button>
    <button type="button" class="secondary" data-action="choose-file" id="choose-file" hidden>Choose a photo instead</button>
  </div>
  <input type="file" id="file" class="visually-hidden" accept="image/jpeg,image/png,image/webp" tabindex="-1" aria-hidden="true">
  ${SKIP}
</section>

<section class="screen" id="screen-review" aria-labelledby="review-title" hidden>
  <h1 id="review-title" tabindex="-1">Check your photo</h1>
  <div class="preview"><img id="review-image" alt=""></div>
  <p class="feedback" id="review-feedback"></p>
  <div class="actions">
    <button type="button" class="primary" data-action="accept" id="accept-button">Use this photo</button>
    <button type="button" class="secondary" data-action="retake" id="retake-button">Take a new photo</button>
  </div>
</section>

<section class="screen" id="screen-challenge" aria-labelledby="challenge-title" hidden>
  <h1 id="challenge-title" tabindex="-1">Show us you’re here</h1>
  <p class="lead" id="challenge-hint">When you press Start, look at the screen, then turn your head slowly the way the words say. It takes about 10 seconds.</p>
  <div class="viewfinder" id="challenge-viewfinder" data-shape="face">
    <video id="challenge-video" playsinline muted autoplay aria-label="Camera preview"></video>
    <div class="guide" aria-hidden="true"></div>
    <p class="challenge-prompt" id="challenge-prompt" hidden></p>
  </div>
  <p class="notice" id="challenge-problem" hidden></p>
  <div class="actions">
    <button type="button" class="primary" data-action="challenge-start" id="challenge-start">Start</button>
  </div>
  ${SKIP}
</section>

<section class="screen" id="screen-submit" aria-labelledby="submit-title" hidden>
  <h1 id="submit-title" tabindex="-1">You’re ready to send</h1>
  <p class="lead">We will check your photos. It only takes a moment.</p>
  <p class="notice" id="submit-problem" hidden></p>
  <div class="actions">
    <button type="button" class="primary" data-action="submit" id="submit-button">Send my photos</button>
  </div>
</section>

<section class="screen" id="screen-done" aria-labelledby="done-title" hidden>
  <div class="seal"><img src="${assetUrl('done.svg')}" alt="" width="72" height="72"></div>
  <h1 id="done-title" tabindex="-1">Thank you, you’re done</h1>
  <p class="lead">We are checking your photos now. You can close this page.</p>
</section>

<section class="screen" id="screen-skip" aria-labelledby="skip-title" hidden>
  <h1 id="skip-title" tabindex="-1">Stop the identity check?</h1>
  <p class="lead">If you stop now, this link will stop working. The business that sent it will know that you did not finish.</p>
  <p>To do it later, you will need a new link from them.</p>
  <p class="notice" id="skip-problem" hidden></p>
  <div class="actions">
    <button type="button" class="secondary" data-action="skip-cancel" id="skip-cancel">No, go back</button>
    <button type="button" class="danger" data-action="skip-confirm" id="skip-confirm">Yes, stop</button>
  </div>
</section>

<section class="screen" id="screen-skipped" aria-labelledby="skipped-title" hidden>
  <h1 id="skipped-title" tabindex="-1">You stopped the identity check</h1>
  <p class="lead">There is nothing more to do now. If you want to finish it later, ask the business for a new link.</p>
</section>

<section class="screen" id="screen-link" hidden>
  <div class="seal"><img src="${assetUrl('link.svg')}" alt="" width="72" height="72"></div>
${(['unknown', 'used', 'expired'] as const).map(
  (k, i) => html`${i > 0 && '\n'}  <div data-link="${k}" hidden>\n    <h1 tabindex="-1">${PAGE_TEXTS[k].title}</h1>\n    <p class="lead">${PAGE_TEXTS[k].text}</p>\n  </div>`,
)}
</section>

<section class="screen" id="screen-problem" aria-labelledby="problem-title" hidden>
  <h1 id="problem-title" tabindex="-1">We can’t load this page</h1>
  <p class="lead" id="problem-text"></p>
  <div class="actions">
    <button type="button" class="primary" data-action="reload">Try again</button>
  </div>
</section>
</main>
</body>
</html>
`.text;
}

export type PageKind = 'unknown' | 'used' | 'expired' | 'unavailable' | 'busy' | 'error';

/**
 * The words of the pages that end the flow before it starts. The flow's own page carries the first three too,
 * for when the API refuses the link midway.
 */
export const PAGE_TEXTS: Record<PageKind, { status: number; title: string; text: string }> = {
  unknown: {
    status: 404,
    title: 'This link does not work',
    text: 'Check that you opened the whole link. If it still does not work, ask the business that sent it for a new link.',
  },
  used: {
    status: 410,
    title: 'This verification is already done',
    text: 'There is nothing more to do, and this link no longer works. If you need to do it again, ask the business for a new link.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'For your safety, links work for a limited time. Please ask the business that sent it for a new link.',
  },
  unavailable: {
    status: 503,
    title: 'Please try again in a minute',
    text: 'We can’t open this page right now. Please try again in a minute.',
  },
  busy: {
    status: 429,
    title: 'Please try again in a minute',
    text: 'Too many pages were opened from your network just now. Please wait a minute, then open the link again.',
  },
  error: {
    status: 500,
    title: 'Please try again in a minute',
    text: 'Something went wrong on our side. Please try again in a minute.',
  },
};

/** A page that says why the link cannot be used now, with its HTTP status. Static: it never echoes the link. */
export function errorPage(kind: PageKind): { status: number; html: string } {
  const t = PAGE_TEXTS[kind];
  const page = html`${head(t.title, false)}
<body>
${BAR}
<main id="main">
<section class="screen" aria-labelledby="page-title">
  <div class="seal"><img src="${assetUrl(kind === 'unavailable' || kind === 'busy' || kind === 'error' ? 'wait.svg' : 'link.svg')}" alt="" width="72" height="72"></div>
  <h1 id="page-title">${t.title}</h1>
  <p class="lead">${t.text}</p>
</section>
</main>
</body>
</html>
`;
  return { status: t.status, html: page.text };
}
