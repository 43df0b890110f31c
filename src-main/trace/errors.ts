/**
 * The one error a trace reader throws: a damaged or foreign file gets a clear error naming what is
 * wrong, never a blank screen. `code` is for the UI to choose its wording and icon; `message`
 * is already a sentence a user can act on.
 */
import type { TraceFormatError } from '@shared/trace/reader';
import { ZipError } from './zip';

export type TraceOpenErrorCode =
  | 'not_zip'
  | 'not_parallax_trace'
  | 'damaged'
  | 'missing_resource'
  /** A resource is there but is not what the event that names it says it is. */
  | 'bad_resource'
  | 'unsupported_version'
  /** The file could not be read at all: missing, a permission problem, a disk error. */
  | 'unreadable'
  /** A part of the trace is over its size limit, or inflates far more than a trace does (docs/rules.md#r-lim-03). */
  | 'too_large'
  /** A page named a path that is not a trace the user opened, nor under Parallax's folders (R-PATH-01). */
  | 'forbidden';

export class TraceOpenError extends Error {
  override readonly name = 'TraceOpenError';

  constructor(
    readonly code: TraceOpenErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** Sorts a manifest problem: from another tool, from a newer Parallax, or damaged. */
  static fromManifest(error: TraceFormatError): TraceOpenError {
    if (error.reason.startsWith('not a Parallax trace')) return new TraceOpenError('not_parallax_trace', error.reason);
    if (error.field === 'version') return new TraceOpenError('unsupported_version', error.message);
    return new TraceOpenError('damaged', error.message);
  }

  /** Any failure while reading a trace: the zip's own verdict, an I/O error, or else damage. */
  static from(error: unknown, path: string): TraceOpenError {
    if (error instanceof TraceOpenError) return error;
    if (error instanceof ZipError) return new TraceOpenError(error.kind, error.message);
    if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string') return TraceOpenError.fromIo(error, path);
    return new TraceOpenError('damaged', `${path} is damaged: ${error instanceof Error ? error.message : String(error)}`);
  }

  static fromIo(error: unknown, path: string): TraceOpenError {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file or folder'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : error instanceof Error
            ? error.message
            : String(error);
    return new TraceOpenError('unreadable', `cannot read ${path}: ${why}`);
  }
}
