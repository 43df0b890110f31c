/**
 * The web host's API socket asked for calls only: `/api?events=off` subscribes to no event, so what it
 * carries (live mode's pictures, `device.screenshot`) never waits behind a tree streamed on the page's
 * main socket (docs/rules.md#r-perf-15).
 */
export const EVENTS_PARAM = 'events';
export const EVENTS_OFF = 'off';
