import type { BrowserContext } from 'playwright-core';
import type { FreshPage } from '@assay/browser';
import type { ElementFingerprint } from '@assay/steps';
import type { RunVariables } from './run-variables.js';

/** One running execution as its cases see it: whether it stopped, and what its cases share. */
export interface RunControl {
  stopped: 'cancelled' | 'timeout' | 'lost' | null;
  contexts: Set<BrowserContext>;
  /** Rejects when the execution stops: browser calls race it, so none can outlive a stop. */
  halt: Promise<never>;
  /** Element fingerprints taken in this execution, shared by its cases (see StepContext). */
  fingerprints: Map<string, ElementFingerprint>;
  /** Stops the execution: halts its browser calls and closes its contexts. */
  end: (why: 'cancelled' | 'timeout' | 'lost') => void;
  /** Contexts of this execution's finished cases, reset for its next ones (BrowserPool.recycle); never another run's. */
  idle: FreshPage[];
  /** The run's variables with the project's and its secrets; the masker of those secrets. */
  vars: RunVariables;
}

/** `p`, unless the execution stops first. */
export const unlessHalted = <T>(ctl: RunControl, p: Promise<T>): Promise<T> => Promise.race([p, ctl.halt]);
