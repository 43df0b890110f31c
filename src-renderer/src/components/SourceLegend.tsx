import './SourceLegend.css';
/**
 * The overlay's legend: one colour per source (XCTest, SDK bridge, web DOM) with its node count, how the
 * source took part in this observation, and a checkbox that shows or hides its boxes; then the layers.
 */
import type { Observation, NodeSource } from '@shared/protocol/observation';
import { insetsOf, layoutWarningSummary, NODE_SOURCES, SOURCE_LABELS, sourceOutcomeText } from '@shared/inspect';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import type { OverlayLayer } from '@renderer/state/store';

const LAYERS: { layer: OverlayLayer; label: string; title: string }[] = [
  { layer: 'safeAreas', label: 'Safe areas', title: 'Shade the unsafe insets and the display cutout' },
  { layer: 'layoutWarnings', label: 'Layout warnings', title: 'Outline elements that reach into an unsafe region' },
  { layer: 'advisories', label: 'Advisories', title: 'Also outline advisory findings (edge-to-edge backgrounds, scrollable content)' },
];

function outcomeOf(observation: Observation | null, source: NodeSource): string | null {
  if (!observation) return null;
  if (source === 'sdkBridge') return sourceOutcomeText(observation.sources.bridge);
  if (source === 'sdkWebBridge') return sourceOutcomeText(observation.sources.web);
  return observation.viewHierarchy ? `${observation.strategy} tree` : 'no tree';
}

/** What each layer holds in this observation, in a few characters. */
function layerDetail(observation: Observation | null, layer: OverlayLayer): string {
  if (!observation) return '';
  if (layer === 'safeAreas') {
    const s = insetsOf(observation)?.safeArea;
    if (!s) return 'none';
    const sides: [string, number][] = [
      ['↑', s.top],
      ['↓', s.bottom],
      ['←', s.left],
      ['→', s.right],
    ];
    const shown = sides.filter(([, v]) => v > 0);
    return shown.length === 0 ? '0' : shown.map(([glyph, v]) => `${glyph}${Math.round(v)}`).join(' ');
  }
  const summary = layoutWarningSummary(observation);
  return String(layer === 'advisories' ? summary.advisory : summary.error + summary.warning);
}

export function SourceLegend({
  counts,
  observation,
  appReveal,
}: {
  counts: Record<NodeSource, number>;
  observation: Observation | null;
  /** An AppReveal frame: its elements, how many came from OCR. */
  appReveal?: { ocr: number } | undefined;
}) {
  const hidden = useScopedInspector((s) => s.hiddenSources);
  const layers = useScopedInspector((s) => s.layers);
  const { setSourceShown, setLayer } = useInspectorStore().getState();
  return (
    <div className="legend" data-testid="source-legend">
      <div className="legend-title">Sources</div>
      {(appReveal ? NODE_SOURCES.filter((s) => s === 'xctest') : NODE_SOURCES).map((source) => {
        const outcome = appReveal ? `get_elements${appReveal.ocr > 0 ? ` · ${appReveal.ocr} by OCR` : ''}` : outcomeOf(observation, source);
        return (
          <label key={source} className={`legend-row${hidden.has(source) ? ' is-off' : ''}`} title={outcome ?? undefined}>
            <input
              type="checkbox"
              data-testid="source-filter"
              data-source={source}
              checked={!hidden.has(source)}
              onChange={(e) => setSourceShown(source, e.target.checked)}
            />
            <span className={`swatch src-${source}`} aria-hidden />
            <span className="legend-name">{appReveal ? 'AppReveal' : SOURCE_LABELS[source]}</span>
            <span className="legend-count" data-testid="source-count" data-source={source}>
              {counts[source]}
            </span>
            {outcome && <span className="legend-outcome">{outcome}</span>}
          </label>
        );
      })}
      <div className="legend-title">Layers</div>
      {LAYERS.map(({ layer, label, title }) => (
        <label key={layer} className="legend-row" title={title}>
          <input type="checkbox" data-testid="layer-toggle" data-layer={layer} checked={layers[layer]} onChange={(e) => setLayer(layer, e.target.checked)} />
          <span className={`swatch layer-${layer}`} aria-hidden />
          <span className="legend-name">{label}</span>
          <span className="legend-count" title={layer === 'safeAreas' ? 'safe-area insets, in points' : undefined}>
            {layerDetail(observation, layer)}
          </span>
        </label>
      ))}
    </div>
  );
}
