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
