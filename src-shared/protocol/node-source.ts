/**
 * Where a node of a merged tree came from; read from extras["sdk.source"] (absent: XCTest). Its own
 * module, so the observation and the accessibility findings both name it without importing each other.
 */
import { z } from 'zod';

export const NodeSourceSchema = z.enum(['xctest', 'sdkBridge', 'sdkWebBridge']);
export type NodeSource = z.infer<typeof NodeSourceSchema>;
