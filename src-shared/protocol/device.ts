/**
 * The devices, frames and timeline steps the API carries (api/api.ts names the methods that carry them).
 * Here, on the ground floor (docs/architecture.md#floors), so the inspector's helpers read a step or a
 * device without importing the API above them.
 */
import { z } from 'zod';
import { AppRevealIdentitySchema, AppRevealScreenInfoSchema, AppRevealWindowSchema } from './appreveal';
import { AppStateSchema } from './appreveal-tools';
import { ActionRequestSchema, ActionResultSchema } from './action';
import { ObservationSchema } from './observation';
import { decodedOnce } from './wire';

export const DeviceKindSchema = z.enum(['runner', 'replay', 'demo', 'appreveal']);
export const DeviceStateSchema = z.enum(['connecting', 'connected', 'disconnected']);

/** How a device's kind reads in the device list. */
export const DEVICE_KIND_LABELS: Record<z.infer<typeof DeviceKindSchema>, string> = {
  runner: 'iOS runner',
  replay: 'Recorded session',
  demo: 'Demo device',
  appreveal: 'AppReveal app',
};

/**
 * What a connection learned about the phone it reaches, so the device list can show one entry per
 * phone (docs/rules.md#r-phone-01): the runner's `/health` `deviceId` (the UDID, CtrlProxy's
 * HealthResponse), the app's own `UIDevice` words (AppReveal's launch_context), the screen's size in
 * points, and whether the runner's last read reached the app's SDK bridge.
 */
export const PhoneFactsSchema = z.object({
  udid: z.string().max(200).optional(),
  deviceName: z.string().max(500).optional(),
  deviceModel: z.string().max(500).optional(),
  systemVersion: z.string().max(100).optional(),
  screen: z.object({ width: z.number().positive(), height: z.number().positive() }).optional(),
  /** The runner's last observation merged the SDK observation bridge (reached through the runner). */
  sdkBridge: z.boolean().optional(),
});
export type PhoneFacts = z.infer<typeof PhoneFactsSchema>;

export const DeviceSummarySchema = z.object({
  id: z.string(),
  kind: DeviceKindSchema,
  name: z.string(),
  /** Whether `name` was given (by the host, discovery or the user) rather than being the URL. */
  named: z.boolean().optional(),
  phone: PhoneFactsSchema.optional(),
  /** The app on screen, as XCTest names it (the application's label), once an observation has arrived. */
  appName: z.string().optional(),
  /** A recorded session played back: the folder it plays. */
  recording: z.object({ folder: z.string() }).optional(),
  url: z.string(),
  state: DeviceStateSchema,
  /** Why the device is not connected (last error), in one line. */
  error: z.string().optional(),
  bundleId: z.string().optional(),
  supportedCommands: z.array(z.string()),
});
export type DeviceSummary = z.infer<typeof DeviceSummarySchema>;

export const ScreenshotSchema = z.object({
  format: z.literal('png'),
  dataBase64: z.string(),
  frameContext: z.string().optional(),
});
export type Screenshot = z.infer<typeof ScreenshotSchema>;

/**
 * One screenshot with one observation (the merged tree and what produced it), each stamped with the
 * frame context it came from, so the UI can tell when they come from different moments.
 */
export const FrameSchema = z.object({
  deviceId: z.string(),
  observation: decodedOnce(ObservationSchema).nullable(),
  hierarchyFrameContext: z.string().optional(),
  screenshot: ScreenshotSchema.nullable(),
  /** Why there is no screenshot (for example a runner that recorded none), if there is none. */
  screenshotError: z.string().optional(),
  receivedAt: z.number(),
  /**
   * The screen's size in points, so a click on the screenshot converts to points with or without a tree
   * (docs/rules.md#r-tap-11): from this frame's observation, else (`from: "earlier"`) from the latest
   * frame of the same device that reported it. Absent when no frame of the device ever did.
   */
  screenPoints: z.object({ width: z.number().positive(), height: z.number().positive(), from: z.enum(['observation', 'earlier']) }).optional(),
  /**
   * For an AppReveal device: its screen identity (frame header), the tools it registered, its windows,
   * who the app is, and (on the frame after an action) what its read-only tools said then.
   */
  appReveal: z
    .object({
      screen: AppRevealScreenInfoSchema.nullable(),
      tools: z.array(z.string()),
      windows: z.array(AppRevealWindowSchema),
      identity: AppRevealIdentitySchema.optional(),
      app: AppStateSchema.optional(),
    })
    .optional(),
});
export type Frame = z.infer<typeof FrameSchema>;

/** A frame as a device connection reads it, before the device manager names the device. */
export const ObservedFrameSchema = FrameSchema.omit({ deviceId: true });
export type ObservedFrame = z.infer<typeof ObservedFrameSchema>;

/** A screenshot on its own (live mode), stamped with the frame context it shows. */
export const ScreenshotFrameSchema = FrameSchema.pick({ deviceId: true, screenshot: true, screenshotError: true, receivedAt: true });
export type ScreenshotFrame = z.infer<typeof ScreenshotFrameSchema>;

/**
 * One action on the timeline: what was asked, what happened (backend, fallback or fail-closed reason,
 * timings), and the frames the user saw before it and the device showed after it.
 */
/** A caller's own name for one action call, echoed on its progress and its step, so a window can match them. */
export const ClientRefSchema = z.string().min(1).max(100);

export const ActionStepSchema = z.object({
  callId: z.string(),
  deviceId: z.string(),
  clientRef: ClientRefSchema.optional(),
  request: ActionRequestSchema,
  result: ActionResultSchema,
  startedAt: z.number(),
  before: FrameSchema.nullable(),
  after: FrameSchema.nullable(),
});
export type ActionStep = z.infer<typeof ActionStepSchema>;
