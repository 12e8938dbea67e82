/** What bench/host's phones write down of the adb traffic they were sent, shared by the phones, the bare loop and the run. */

/** The serial of phone number `index`. */
export const phoneSerial = (index: number) => `RACK${String(index + 1).padStart(3, '0')}`;

/**
 * One request a phone was sent, `at` ms after the recording began: a one-shot `shell:<command>` (`exec`), a line
 * written into a kept-open `shell:sh` (`line`), or a stream to a port of the phone (`tcp`, the UI server's 6790) with
 * the request's bytes in base64.
 */
export interface Recorded {
  serial: string;
  at: number;
  kind: 'exec' | 'line' | 'tcp';
  text: string;
  port?: number;
}

export interface Recording {
  events: Recorded[];
  /** How long the recording ran. */
  ms: number;
  /** Requests to the adb server that were not a phone's shell or port (tracking, pushes, live streams), and their kinds. */
  other: number;
  otherKinds: string[];
}
