import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it where missing), or `CHROMIUM_PATH`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium for the tests of web pages, driven by playwright-core. With `cameraFile` (an MJPEG or Y4M
 * file), `getUserMedia` is granted without asking and plays that file as the camera.
 */
export async function launchChromium(cameraFile?: string): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: apt-get install -y chromium`);
  const { chromium } = await import('playwright-core');
  const camera = cameraFile ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${cameraFile}`] : [];
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...camera],
  });
}

/** axe-core (npm), read on first use: evaluated in the page by the test (the pages' policies load no script of ours). */
let axeSource: string | null = null;

/**
 * The serious and critical accessibility violations of the page shown, by axe-core's WCAG 2.1 A and AA rules: one line
 * each, the rule and the first elements it names.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
    .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.impact + ' ' + v.id + ': ' + v.help + ' (' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ') + ')'))`);
}
