/** Where the dispatcher reads the time: tests move it forward instead of waiting. */
export interface Clock {
  now(): Date;
}

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };
