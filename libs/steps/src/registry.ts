import type { StepAction } from '@assay/contracts';
import type { StepKind } from './context.js';
import { assertAttribute, assertCount, assertHidden, assertText, assertUrl, assertValue, assertVisible } from './kinds/assertions.js';
import { check, click, dblclick, drag, fill, hover, press, select, typeText, uncheck, upload } from './kinds/element-actions.js';
import { goBack, goForward, navigate, reload } from './kinds/navigation.js';
import { screenshot, wait } from './kinds/page.js';
import { request } from './kinds/request.js';
import { assertAccessible } from './kinds/accessibility.js';

/**
 * Every step action and the kind that runs it. Typed against the contracts'
 * action table: an action added there does not type-check until it has its
 * entry here, and an entry here needs its action there (validation, docs).
 */
export const STEP_KINDS: { readonly [A in StepAction]: StepKind } = {
  navigate,
  click,
  fill,
  type: typeText,
  select,
  check,
  uncheck,
  hover,
  screenshot,
  wait,
  assert_visible: assertVisible,
  assert_text: assertText,
  assert_value: assertValue,
  dblclick,
  press,
  assert_hidden: assertHidden,
  assert_count: assertCount,
  assert_attribute: assertAttribute,
  assert_url: assertUrl,
  go_back: goBack,
  go_forward: goForward,
  reload,
  upload,
  drag,
  assert_accessible: assertAccessible,
  request,
};

/** The kind that runs `action`, or undefined for an action this engine does not know (a step stored by a newer version, say). */
export function stepKind(action: string): StepKind | undefined {
  return Object.hasOwn(STEP_KINDS, action) ? STEP_KINDS[action as StepAction] : undefined;
}
