export {
  TraceRecorder,
  TraceRecorderError,
  type TraceEventInput,
  type TraceManifestInput,
  type TraceRecorderOptions,
  type TraceRecorderStats,
} from './recorder';
export { discardUnfinishedTrace, findUnfinishedTraces, recoverTrace, type RecoveryReport, type UnfinishedTrace } from './recovery';
export { openTraceFile, TraceOpenError, type OpenedTrace, type TraceOpenErrorCode } from './open';
export { exportMaestro, exportNotes, exportXcuiTest, type MaestroExportResult, type XcuiTestExportResult } from './export';
export type { PackReport } from './pack';
export { IN_PROGRESS_SUFFIX, TRACE_FILE_EXTENSION } from './files';
