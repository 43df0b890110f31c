/** A point in screen points: one schema for actions, the bridge's wire and traces (zod 4 numbers are finite). */
import { z } from 'zod';

export const PointSchema = z.object({ x: z.number(), y: z.number() });
export type Point = z.infer<typeof PointSchema>;
