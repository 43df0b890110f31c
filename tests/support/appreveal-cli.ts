/**
 * AppReveal's own command line (`CLI/` of UnlikeOtherAI/AppReveal, npm `@unlikeotherai/appreveal` 0.8.0),
 * reduced to exactly the calls its commands make and what they read of the replies
 * (docs/protocol.md#p-ar-cli): its transport (`CLI/src/mcp.ts`: one POST per call, ids counting from 1,
 * `params` left out when undefined, no auth header, so the token rides in the URL's query), its result
 * decoding (`decodeToolResult`: the first text block, JSON-parsed), and `inspect`, `snapshot`, `find`,
 * `tap`, `type` (`CLI/src/index.ts`, `workflows.ts`). Used to check the demo serves what that CLI needs.
 */

/** The tools AppReveal's CLI commands call. */
export const CLI_TOOLS = [
  'launch_context',
  'device_info',
  'get_screen',
  'get_elements',
  'get_view_tree',
  'batch',
  'tap_element',
  'tap_point',
  'type_text',
] as const;

export class CliError extends Error {}

type Rec = Record<string, unknown>;

export class AppRevealCli {
  private nextId = 1;
  /** Every request the CLI sent: method, tool, arguments. */
  readonly sent: Array<{ method: string; tool?: string; arguments?: unknown }> = [];

  /** The URL as a user passes it: the session URL, its token in the query. */
  constructor(private readonly url: string) {}

  async request(method: string, params?: Rec): Promise<unknown> {
    const body: Rec = { jsonrpc: '2.0', id: this.nextId++, method };
    if (params !== undefined) body.params = params;
    this.sent.push({ method, ...(method === 'tools/call' ? { tool: params?.name as string, arguments: params?.arguments } : {}) });
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (response.status < 200 || response.status >= 300) throw new CliError(`HTTP ${response.status} from ${new URL(this.url).host}: ${text}`);
    let parsed: Rec;
    try {
      parsed = JSON.parse(text) as Rec;
    } catch {
      throw new CliError(`Invalid JSON from ${new URL(this.url).host}`);
    }
    if (parsed.error) {
      const error = parsed.error as { code?: number; message?: string };
      throw new CliError(`MCP error ${error.code}: ${error.message}`);
    }
    return parsed.result;
  }

  /** `call <tool>`: tools/call and decodeToolResult. */
  async call(tool: string, args: Rec = {}): Promise<unknown> {
    return decodeToolResult(await this.request('tools/call', { name: tool, arguments: args }));
  }

  /** `inspect [--device-info]`. */
  async inspect(deviceInfo = true): Promise<{ initialize: unknown; launchContext: unknown; tools: unknown; deviceInfo?: unknown }> {
    const initialize = await this.request('initialize');
    const launchContext = await this.call('launch_context');
    const tools = await this.request('tools/list');
    return { initialize, launchContext, tools, ...(deviceInfo ? { deviceInfo: await this.call('device_info') } : {}) };
  }

  /** The one batch `snapshot`, `find` and `tap` start with, keyed by tool as workflows.ts keys it. */
  private async snapshotBatch(withLaunchContext: boolean): Promise<Record<string, unknown>> {
    const actions = [
      ...(withLaunchContext ? [{ tool: 'launch_context' }] : []),
      { tool: 'get_screen' },
      { tool: 'get_elements' },
      { tool: 'get_view_tree', arguments: { max_depth: 12 } },
    ];
    const decoded = (await this.call('batch', { actions })) as { results?: Array<Rec> } | undefined;
    const byTool: Record<string, unknown> = {};
    for (const item of decoded?.results ?? []) {
      if (typeof item.tool !== 'string') continue;
      // iOS: the result is a JSON string, parsed. Otherwise the whole item is kept (the Tauri form).
      byTool[item.tool] = typeof item.result === 'string' ? safeParse(item.result) : item;
    }
    return byTool;
  }

  /** The elements the CLI works with: get_elements' and the labelled, interactive, visible views. */
  private static elementsOf(byTool: Record<string, unknown>): Rec[] {
    const elements = ((byTool.get_elements as Rec | undefined)?.elements as Rec[] | undefined) ?? [];
    const views = ((byTool.get_view_tree as Rec | undefined)?.views as Rec[] | undefined) ?? [];
    const fromViews = views
      .filter(
        (v) =>
          typeof v.accessibilityLabel === 'string' &&
          v.accessibilityLabel !== '' &&
          v.userInteraction === true &&
          v.hidden !== true &&
          typeof v.frame === 'string',
      )
      .map((v) => ({
        id: String(v.accessibilityLabel).split(/\s+/)[0],
        label: v.accessibilityLabel,
        type: String(v.class ?? '')
          .replace(/^RCT/, '')
          .toLowerCase(),
        enabled: 'true',
        visible: 'true',
        tappable: 'true',
        frame: v.frame,
        actions: 'tap',
        source: 'view_tree',
      }));
    return [...elements.map((e) => ({ ...e, source: 'elements' })), ...fromViews];
  }

  async snapshot(limit = 8): Promise<{ launchContext: unknown; screen: unknown; elementCount: number; elements: Rec[] }> {
    const byTool = await this.snapshotBatch(true);
    const elements = AppRevealCli.elementsOf(byTool);
    return { launchContext: byTool.launch_context, screen: byTool.get_screen, elementCount: elements.length, elements: elements.slice(0, limit) };
  }

  async find(query: string, field: 'any' | 'id' | 'label' | 'value' | 'type' | 'actions' = 'any', limit = 8): Promise<Array<{ score: number; element: Rec }>> {
    const elements = AppRevealCli.elementsOf(await this.snapshotBatch(false));
    return rank(elements, query, field).slice(0, limit);
  }

  async tap(query: string, field: 'any' | 'id' | 'label' = 'any'): Promise<unknown> {
    const ranked = rank(AppRevealCli.elementsOf(await this.snapshotBatch(false)), query, field);
    const [best, second] = ranked;
    if (!best) throw new CliError(`No element matches "${query}"`);
    if (second && second.score === best.score) throw new CliError(`"${query}" is ambiguous`);
    const element = best.element;
    if (typeof element.id === 'string' && element.source !== 'view_tree') return this.call('tap_element', { element_id: element.id });
    const centre = centreOf(element.frame);
    if (!centre) throw new CliError(`"${query}" has no frame`);
    return this.call('tap_point', centre);
  }

  async type(text: string, elementQuery?: string): Promise<unknown> {
    if (elementQuery === undefined) return this.call('type_text', { text });
    const ranked = rank(AppRevealCli.elementsOf(await this.snapshotBatch(false)), elementQuery, 'any');
    const best = ranked[0];
    if (!best) throw new CliError(`No element matches "${elementQuery}"`);
    if (typeof best.element.id === 'string' && best.element.source !== 'view_tree') return this.call('type_text', { text, element_id: best.element.id });
    const centre = centreOf(best.element.frame);
    if (!centre) throw new CliError(`"${elementQuery}" has no frame`);
    await this.call('tap_point', centre);
    return this.call('type_text', { text });
  }
}

/** decodeToolResult: the first text content item, JSON-parsed (else the string); no text item: the raw result. */
export function decodeToolResult(result: unknown): unknown {
  const content = (result as { content?: Array<{ type?: string; text?: string }> } | undefined)?.content;
  const text = Array.isArray(content) ? content.find((item) => item.type === 'text' && typeof item.text === 'string') : undefined;
  return text ? safeParse(text.text as string) : result;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The CLI's ranking, on string fields only: exact id 120, exact other 100, prefix 95/80, contains 75/60. */
function rank(elements: Rec[], query: string, field: string): Array<{ score: number; element: Rec }> {
  const q = query.toLowerCase();
  const fields = field === 'any' ? ['id', 'label', 'value', 'type', 'actions'] : [field];
  const scored = elements.map((element) => {
    let score = 0;
    for (const name of fields) {
      const value = element[name];
      if (typeof value !== 'string' || value === '') continue;
      const v = value.toLowerCase();
      const isId = name === 'id';
      const s = v === q ? (isId ? 120 : 100) : v.startsWith(q) ? (isId ? 95 : 80) : v.includes(q) ? (isId ? 75 : 60) : 0;
      score = Math.max(score, s);
    }
    return { score, element };
  });
  return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
}

function centreOf(frame: unknown): { x: number; y: number } | undefined {
  if (typeof frame !== 'string') return undefined;
  const [x, y, w, h] = frame.split(',').map(Number);
  if ([x, y, w, h].some((n) => n === undefined || !Number.isFinite(n))) return undefined;
  return { x: (x as number) + (w as number) / 2, y: (y as number) + (h as number) / 2 };
}

/** Per demo flavour: which of the CLI's tools the app lists. */
export async function cliToolsServed(url: string): Promise<{ served: string[]; missing: string[] }> {
  const cli = new AppRevealCli(url);
  const listed = ((await cli.request('tools/list')) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  return { served: CLI_TOOLS.filter((t) => listed.includes(t)), missing: CLI_TOOLS.filter((t) => !listed.includes(t)) };
}
