import { chromium, type Browser } from 'playwright-core';

/** Chromium flags of DESIGN.md, Browsers. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65). Chromium
 * honours only the last `--disable-features` switch and Playwright puts its
 * list first, so ours must repeat it. `test/browser.test.ts` reads the live
 * command line and fails when Playwright's list grows beyond this copy.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features Assay turns off on top of Playwright's. Debian's `chromium` is the
 * full browser in new headless mode: every browser context opens a window
 * whose omnibox preloads two WebUI popups, each in a renderer process of its
 * own. Nothing headless ever shows them; they cost more CPU than the page under
 * test (see the execution-runner README, Performance).
 */
export const ASSAY_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/** The launch arguments: DESIGN's flags and one merged `--disable-features`. */
export function chromiumArgs(extra: string[] = []): string[] {
  const features = [...new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...ASSAY_DISABLED_FEATURES])];
  return [...CHROMIUM_ARGS, `--disable-features=${features.join(',')}`, ...extra];
}

export interface LaunchOptions {
  /** CHROMIUM_PATH. */
  executablePath: string;
  /** Default true. */
  headless?: boolean;
}

/**
 * Launches Chromium with Assay's flags through playwright-core.
 * @throws when the executable is missing or the browser does not start.
 */
export function launchChromium(options: LaunchOptions): Promise<Browser> {
  return chromium.launch({ executablePath: options.executablePath, headless: options.headless ?? true, args: chromiumArgs() });
}
