import { createHash } from 'node:crypto';
import type { FieldInfo, FlowStep, FormInfo, PageAnalysis } from '../../db/database.js';

export type FlowType = 'authentication' | 'checkout' | 'search' | 'form_submission' | 'navigation' | 'crud';

export interface AnalyzedPage {
  url: string;
  title: string;
  analysis: PageAnalysis;
}

export interface DetectedFlow {
  /** Identity across re-detections: the same evidence gives the same key. */
  key: string;
  flow_id: string;
  type: FlowType;
  pages: string[];
  steps: FlowStep[];
  /** 0..1: how much independent evidence backs the flow. */
  confidence: number;
  evidence: string[];
}

export type NewFlow = Omit<DetectedFlow, 'flow_id'>;

/**
 * What every detector sees: the pages read so far (and by URL), the forms an
 * earlier detector already made part of a flow (so a login is not also a
 * plain form), and where to add what it found.
 */
export class Detection {
  readonly byUrl: Map<string, AnalyzedPage>;
  readonly flows: DetectedFlow[] = [];
  private readonly claimed = new Set<string>();

  constructor(readonly pages: AnalyzedPage[]) {
    this.byUrl = new Map(pages.map((p) => [p.url, p]));
  }

  add(f: NewFlow): void {
    this.flows.push({ ...f, flow_id: flowId(f.key), confidence: round(f.confidence) });
  }

  claim(p: AnalyzedPage, f: FormInfo): void {
    this.claimed.add(`${p.url} ${f.selector}`);
  }

  isClaimed(p: AnalyzedPage, f: FormInfo): boolean {
    return this.claimed.has(`${p.url} ${f.selector}`);
  }
}

/** A detector finds the flows of one type in what the crawl read, adding them to the detection. */
export type FlowDetector = (d: Detection) => void;

const flowId = (key: string) => `flow_${createHash('sha1').update(key).digest('hex').slice(0, 12)}`;
export const round = (n: number) => Math.round(Math.min(1, n) * 100) / 100;
const text = (f: FieldInfo) => `${f.name} ${f.label} ${f.autocomplete}`.toLowerCase();
export const isTextual = (f: FieldInfo) => ['text', 'email', 'search', 'tel', 'url', 'number', 'textarea'].includes(f.type) || f.tag === 'textarea';
export const isPassword = (f: FormInfo) => f.fields.some((x) => x.type === 'password');
export const isPayment = (f: FormInfo) => f.fields.some((x) => /^cc-|card|cvc|cvv|expir/.test(text(x)) || x.autocomplete.startsWith('cc-'));
export const isAddress = (f: FormInfo) => f.fields.some((x) => /street-address|address-line|shipping|postal-code|address/.test(text(x)));

/** Sample values a generated test fills into a field, chosen from the field's type. */
export function sampleValue(f: FieldInfo): string {
  const t = text(f);
  if (f.type === 'email' || /email/.test(t)) return 'tester@example.com';
  if (f.type === 'password') return 'Secret-123';
  if (f.type === 'number') return '1';
  if (f.type === 'tel') return '5550100';
  if (/cc-number|card.?num/.test(t)) return '4242424242424242';
  if (/exp/.test(t)) return '12/30';
  if (/cvc|cvv|csc/.test(t)) return '123';
  if (/postal|zip/.test(t)) return '10001';
  if (/address|street/.test(t)) return '1 Main St';
  if (/name/.test(t)) return 'Test User';
  return 'Test';
}

export function fillSteps(form: FormInfo): FlowStep[] {
  return form.fields.filter((f) => isTextual(f) || f.type === 'password').map((f) => ({ action: 'fill_form' as const, selector: f.selector, value: sampleValue(f) }));
}
