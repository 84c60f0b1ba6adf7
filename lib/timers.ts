// What a timer can hold: Node's timers are 32-bit, and one set for longer fires at once (with a warning). Every
// limit that becomes a timer (--timeout, a tool's limit on a call) is held to this.

/** The longest delay a timer holds, ms (some 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
