/**
 * The optional alert sound for pushed work: off unless the person turned it on in Settings (kept in this
 * browser), and a short beep made with WebAudio rather than an audio file.
 */
export const SOUND_STORAGE_KEY = 'task_alert_sound';

export function readSoundEnabled(): boolean {
  try {
    return window.localStorage.getItem(SOUND_STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

export function writeSoundEnabled(enabled: boolean): void {
  try {
    window.localStorage.setItem(SOUND_STORAGE_KEY, enabled ? 'on' : 'off');
  } catch {
    // Storage refused (private mode, quota): the switch still works for this page.
  }
}

type AudioContextClass = typeof AudioContext;
let context: AudioContext | undefined;

/** Two short rising tones, about a quarter of a second. Silent where the browser has no WebAudio or blocks it. */
export function playBeep(): void {
  const Context: AudioContextClass | undefined = window.AudioContext ?? (window as unknown as { webkitAudioContext?: AudioContextClass }).webkitAudioContext;
  if (!Context) return;
  try {
    context ??= new Context();
    // Browsers start audio suspended until the page has had a click; resuming then works for later beeps.
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    const start = context.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.12, 1320],
    ] as const) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = 'sine';
      oscillator.frequency.setValueAtTime(frequency, start + offset);
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.2, start + offset + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.11);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(start + offset);
      oscillator.stop(start + offset + 0.12);
    }
  } catch {
    // No sound is fine: the notification itself is the alert.
  }
}
