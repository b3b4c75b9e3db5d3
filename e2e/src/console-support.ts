/**
 * What the console's browser tests share (docs/console.md): the region's console address, people of a fresh
 * organization in each role (made through the accounts service as `npm run admin -- user create` does), a
 * headless Chromium page signed in as one of them, and screenshots.
 *
 * Screenshots land in docs/console/ (committed: the README links them, and every run of the tests retakes them,
 * so they show the console as it is). Each test file takes its own pages' shots with fixed names.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SUBJECTS, type ConsoleRole, type ConsoleUser, type Organization } from '@verity/contracts';
import { REPO_ROOT } from '@verity/stack';
import { launchChromium } from '@verity/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createOrg, operator, type Region } from './support.js';

export const CONSOLE = {
  us: process.env.E2E_CONSOLE_US_URL ?? '',
  eu: process.env.E2E_CONSOLE_EU_URL ?? '',
} as Record<Region, string>;

export const SHOTS = path.join(REPO_ROOT, 'docs', 'console');
export const LAPTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

const op = { principal: null, requestId: 'req_e2e_console' };

export interface Person {
  user: ConsoleUser;
  password: string;
}

export interface Team {
  region: Region;
  org: Organization;
  people: Record<ConsoleRole, Person>;
}

/** A console user of an organization, made as the admin CLI makes one. */
export async function createPerson(region: Region, orgId: string, role: ConsoleRole): Promise<Person> {
  const password = `pw-${randomBytes(12).toString('base64url')}`;
  const email = `${role}.${randomBytes(4).toString('hex')}@example.com`;
  const user = await (await operator(region)).call(SUBJECTS.accountsConsoleUserCreate, { org_id: orgId, email, role, password }, op);
  return { user, password };
}

/** A fresh organization with one person in each role. */
export async function team(region: Region): Promise<Team> {
  const org = await createOrg(region);
  const roles: ConsoleRole[] = ['owner', 'admin', 'developer', 'reviewer'];
  const people = Object.fromEntries(await Promise.all(roles.map(async (r) => [r, await createPerson(region, org.id, r)] as const))) as Record<ConsoleRole, Person>;
  return { region, org, people };
}

export async function browser(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return launchChromium();
}

/** A new browser context (its own cookies) signed in as `person`, on the region's console. */
export async function signedIn(b: Browser, region: Region, person: Person, viewport = LAPTOP): Promise<{ context: BrowserContext; page: Page }> {
  const context = await b.newContext({ viewport, baseURL: CONSOLE[region] });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Email').fill(person.user.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));
  return { context, page };
}

/** Switches the signed-in page to a mode with the switch every page shows. */
export async function switchMode(page: Page, mode: 'test' | 'live'): Promise<void> {
  const badge = page.locator('.mode-badge');
  if ((await badge.getAttribute('data-mode')) === mode) return;
  await page.getByRole('button', { name: `Switch to ${mode}` }).click();
  await page.waitForSelector(`.mode-badge[data-mode="${mode}"]`);
}

/** A full-page screenshot under docs/console/ (`name` without extension). */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * What is wrong with the layout of the page shown, measured in the page (`page.evaluate(LAYOUT_PROBLEMS)`, a list of
 * strings): the document wider than the window (it scrolls sideways), and boxes of text or controls drawn over each
 * other. Each visible control, image and element with text of its own is measured line box by line box
 * (`getClientRects`), and two that are not one inside the other may not overlap by more than a pixel each way.
 * Plain JavaScript in a string: it runs in the page, whose types this project does not compile against.
 */
export const LAYOUT_PROBLEMS = `(() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) problems.push('the page is ' + root.scrollWidth + ' px wide in a ' + root.clientWidth + ' px window');
  const describe = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40) + '"';
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
      // clipped away for screen readers only (a table's head on a phone)
      if (cs.position === 'absolute' && cs.clip !== 'auto' && e.getBoundingClientRect().width <= 1) return false;
    }
    return true;
  };
  const boxes = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.tagName !== 'SELECT' && el.closest('select, svg, .visually-hidden, caption')) continue;
    const control = /^(A|BUTTON|INPUT|SELECT|TEXTAREA|SUMMARY|IMG)$/.test(el.tagName) && !(el.tagName === 'INPUT' && el.type === 'hidden');
    const ownText = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent || '').trim() !== '');
    if (!control && !ownText) continue;
    if (!shown(el)) continue;
    for (const r of el.getClientRects()) if (r.width >= 2 && r.height >= 2) boxes.push({ el, r });
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w > 1 && h > 1) problems.push(describe(a.el) + ' overlaps ' + describe(b.el) + ' (' + Math.round(w) + 'x' + Math.round(h) + ' px)');
      if (problems.length >= 12) return problems;
    }
  }
  return problems;
})()`;

/** The serious and critical axe-core violations of the page shown (libs/testing/support, shared with the capture page's test). */
export { accessibilityProblems } from '@verity/testing';
