/**
 * Where a secret was found (docs/rules.md#r-secret-01): each place a user could read (events, history,
 * trace, exports, logs, CLI output) searched for each secret, as "place: secret". A test expects none.
 */
export function placesHolding(places: Readonly<Record<string, string>>, secrets: readonly string[]): string[] {
  return Object.entries(places).flatMap(([place, text]) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${place}: ${secret}`));
}
