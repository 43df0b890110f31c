/**
 * The layer rule (eslint.config.js, docs/architecture.md) catches each kind of import that would break
 * the architecture: every snippet below is linted as if it were a file of that folder.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);
}

describe('the layer rule', () => {
  it('lets every layer import what it may', async () => {
    expect(
      await layerErrors(
        'src-shared/observe/ok.ts',
        "import { z } from 'zod'; import { UiNodeSchema } from '@shared/protocol/runner'; export const a = [z, UiNodeSchema];",
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src-renderer/src/ok.ts',
        "import { useState } from 'react'; import { flattenTree } from '@shared/model/tree'; export const b = [useState, flattenTree];",
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src-main/ok.ts',
        "import { readFileSync } from 'node:fs'; import { startDemoDevice } from '@demo/index'; export const c = [readFileSync, startDemoDevice];",
      ),
    ).toEqual([]);
    expect(
      await layerErrors(
        'src-demo/ok.ts',
        "import { WebSocketServer } from 'ws'; import { UiNodeSchema } from '@shared/protocol/runner'; export const d = [WebSocketServer, UiNodeSchema];",
      ),
    ).toEqual([]);
  });

  it('keeps src-shared pure: no Node module, no main, no renderer', async () => {
    const errors = await layerErrors(
      'src-shared/observe/bad.ts',
      "import { readFileSync } from 'node:fs'; import { RunnerClient } from '@main/runner/client'; import { App } from '@renderer/components/App'; export const x = [readFileSync, RunnerClient, App];",
    );
    expect(errors).toHaveLength(3);
    expect(errors.join('\n')).toMatch(/"observe" to entities of module with origin "core" and module source "node:fs"/);
    expect(errors.join('\n')).toMatch(/"observe" to elements of type "main"/);
    expect(errors.join('\n')).toMatch(/"observe" to elements of type "renderer"/);
  });

  it('keeps the wire formats at the bottom: protocol imports nothing above it', async () => {
    const errors = await layerErrors('src-shared/protocol/bad.ts', "import { diffTrees } from '@shared/compare/diff'; export const w = [diffTrees];");
    expect(errors).toEqual([expect.stringMatching(/"protocol" to elements of type "compare"/)]);
  });

  // src-shared's floors (docs/architecture.md#floors): each floor below may be used, none above, no neighbour.
  it('lets each floor of src-shared import the floors below it', async () => {
    expect(
      await layerErrors(
        'src-shared/api/ok.ts',
        "import { z } from 'zod'; import { UiNodeSchema } from '@shared/protocol/runner'; import { flattenTree } from '@shared/model/tree'; import { parseSelector } from '@shared/selectors/query'; import { resolveTarget } from '@shared/act/resolve'; import { diffTrees } from '@shared/compare/diff'; import { TraceSchema } from '@shared/trace/schema'; import { stepOutcome } from '@shared/inspect/actions'; export const a = [z, UiNodeSchema, flattenTree, parseSelector, resolveTarget, diffTrees, TraceSchema, stepOutcome];",
      ),
    ).toEqual([]);
  });

  it.each([
    ['model', "import { resolveTarget } from '@shared/act/resolve'", 'act'],
    ['observe', "import { parseSelector } from '@shared/selectors/query'", 'selectors'],
    ['selectors', "import { assemble } from '@shared/observe/assemble'", 'observe'],
    ['act', "import { diffTrees } from '@shared/compare/diff'", 'compare'],
    ['compare', "import { TraceSchema } from '@shared/trace/schema'", 'trace'],
    ['trace', "import { stepOutcome } from '@shared/inspect/actions'", 'inspect'],
    ['inspect', "import { apiMethods } from '@shared/api/api'", 'api'],
  ])('refuses a wrong-way import on the %s floor', async (floor, imports, above) => {
    const errors = await layerErrors(`src-shared/${floor}/bad.ts`, `${imports}; export const u = 1;`);
    expect(errors).toContainEqual(expect.stringMatching(new RegExp(`"${floor}" to elements of type "${above}"`)));
  });

  it('never lets renderer and main import each other', async () => {
    expect(await layerErrors('src-renderer/src/bad.ts', "import { DeviceManager } from '@main/devices/manager'; export const y = [DeviceManager];")).toEqual([
      expect.stringMatching(/"renderer" to elements of type "main"/),
    ]);
    expect(await layerErrors('src-main/bad.ts', "import { useStore } from '@renderer/state/store'; export const v = [useStore];")).toEqual([
      expect.stringMatching(/"main" to elements of type "renderer"/),
    ]);
  });

  it('keeps the renderer off Node and Electron', async () => {
    const errors = await layerErrors(
      'src-renderer/src/bad.ts',
      "import { ipcRenderer } from 'electron'; import { join } from 'node:path'; export const y = [ipcRenderer, join];",
    );
    expect(errors).toHaveLength(2);
  });

  it('lets the demo device speak only the wire formats, and the host reach it only through its entry points', async () => {
    const demo = await layerErrors(
      'src-demo/bad.ts',
      "import { RunnerClient } from '@main/runner/client'; import { resolveTarget } from '@shared/act/resolve'; export const z = [RunnerClient, resolveTarget];",
    );
    expect(demo).toEqual([expect.stringMatching(/"demo" to elements of type "main"/), expect.stringMatching(/"demo" to elements of type "act"/)]);
    expect(await layerErrors('src-main/bad.ts', "import { DemoDevice } from '@demo/device/demo-device'; export const v = [DemoDevice];")).toEqual([
      expect.stringMatching(/"main" to elements of type "demo"/),
    ]);
  });
});
