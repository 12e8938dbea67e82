import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fake-android.ts';
import { UiBusyError } from '../phone/phone.device.ts';
import {
  dumpFailure,
  focusedText,
  inputTextArguments,
  mediaStorePath,
  mediaUri,
  parseContentRows,
  parseLockState,
  isInputTextSafe,
  parseBattery,
  parseForeground,
  parseGetprop,
  parseNetwork,
  parseScreen,
  parseUiDump,
  parseVersionName,
  parseWmSize,
  phoneInfoFrom,
  shellQuote,
} from './adb.parse.ts';

describe('reading what Android prints', () => {
  it('reads model, Android version, SDK, ABI and serial from getprop and the screen from wm size', () => {
    const info = phoneInfoFrom(parseGetprop(fixture('getprop.txt')), parseWmSize(fixture('wm-size.txt')), 'usb-serial');
    expect(info).toEqual({
      serial: '2B161FDH200ZNK',
      manufacturer: 'Google',
      model: 'Pixel 7',
      androidVersion: '14',
      sdk: 34,
      abi: 'arm64-v8a',
      screen: { width: 1080, height: 2400 },
    });
  });

  it('takes the override size and keeps portrait', () => {
    expect(parseWmSize('Physical size: 1440x3120\nOverride size: 1080x2340\n')).toEqual({ width: 1080, height: 2340 });
    expect(phoneInfoFrom({}, { width: 2400, height: 1080 }, 'x').screen).toEqual({ width: 1080, height: 2400 });
    expect(phoneInfoFrom({}, null, 'emulator-5554').serial).toBe('emulator-5554');
  });

  it('reads battery level, charging and plug from dumpsys battery', () => {
    expect(parseBattery(fixture('dumpsys-battery.txt'))).toEqual({ level: 76, charging: true, plugged: 'usb', temperatureC: 28.7 });
    const unplugged = fixture('dumpsys-battery.txt')
      .replace('USB powered: true', 'USB powered: false')
      .replace('status: 2', 'status: 3')
      .replace('level: 76', 'level: 12');
    expect(parseBattery(unplugged)).toEqual({ level: 12, charging: false, plugged: null, temperatureC: 28.7 });
    expect(() => parseBattery("Can't find service: battery")).toThrow('did not report its battery');
  });

  it('reads screen on and off from dumpsys power', () => {
    expect(parseScreen(fixture('dumpsys-power.txt'))).toEqual({ on: true });
    expect(parseScreen(fixture('dumpsys-power-off.txt'))).toEqual({ on: false });
    expect(parseScreen('Display Power: state=OFF')).toEqual({ on: false });
  });

  it('reads the foreground app from dumpsys window', () => {
    expect(parseForeground(fixture('dumpsys-window.txt'))).toEqual({
      package: 'com.instagram.android',
      activity: 'com.instagram.mainactivity.InstagramMainActivity',
    });
    expect(parseForeground('  mFocusedApp=ActivityRecord{1b2 u0 com.zhiliaoapp.musically/com.ss.android.ugc.aweme.splash.SplashActivity t52}')).toEqual({
      package: 'com.zhiliaoapp.musically',
      activity: 'com.ss.android.ugc.aweme.splash.SplashActivity',
    });
    expect(parseForeground('  mCurrentFocus=Window{9f u0 com.android.settings/.Settings}')).toEqual({
      package: 'com.android.settings',
      activity: 'com.android.settings.Settings',
    });
    expect(parseForeground('  mCurrentFocus=null\n  mFocusedApp=null')).toBeNull();
  });

  it("reads an app's installed version from dumpsys package (nothing when it is not installed)", () => {
    expect(parseVersionName(fixture('dumpsys-package.txt'))).toBe('360.0.0.52.192');
    // An app updated over its system image: the installed version is the first line the grep prints.
    expect(parseVersionName(fixture('dumpsys-package-grep-updated.txt'))).toBe('1.0.16');
    expect(parseVersionName('')).toBeNull();
  });

  it('reads the default network from dumpsys connectivity', () => {
    expect(parseNetwork(fixture('dumpsys-connectivity.txt'))).toEqual({ connected: true, transport: 'wifi' });
    expect(parseNetwork(fixture('dumpsys-connectivity.txt').replace('Active default network: 104', 'Active default network: 103'))).toEqual({
      connected: true,
      transport: 'cellular',
    });
    expect(parseNetwork('Active default network: none\n')).toEqual({ connected: false, transport: null });
    expect(parseNetwork('NetworkAgentInfo [MOBILE (LTE) - 100] ni{[type: MOBILE[LTE], state: CONNECTED/CONNECTED]}\nActive default network: 100')).toEqual({
      connected: true,
      transport: 'cellular',
    });
  });

  it('takes the XML out of a dump and tells a busy screen from a failure', () => {
    const xml = fixture('ui-instagram-feed.xml');
    expect(parseUiDump(`UI hierchary dumped to: /data/local/tmp/farm-ui.xml\n${xml}`)).toBe(xml.trim());
    expect(() => parseUiDump('ERROR: could not get idle state.\n')).toThrow(UiBusyError);
    expect(() => parseUiDump('Killed\n')).toThrow('The phone could not read its screen (Killed).');
  });

  it('quotes text for the phone shell and for input text', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(inputTextArguments('Sunset at the pier #travel')).toEqual(["'Sunset%sat%sthe%spier%s#travel'"]);
    expect(inputTextArguments('50%sale now')).toEqual(["'50%'", "'sale%snow'"]);
    expect(inputTextArguments("$(reboot) `x` 'q'")).toEqual([`'$(reboot)%s\`x\`%s'\\''q'\\'''`]);
    const long = inputTextArguments('a'.repeat(450));
    expect(long.map((argument) => argument.length - 2)).toEqual([200, 200, 50]);
    expect(isInputTextSafe('plain ascii!')).toBe(true);
    expect(isInputTextSafe('café ☀️')).toBe(false);
  });

  it('tells why a dump printed no tree', () => {
    expect(dumpFailure('ERROR: could not get idle state.\n')).toBe('idle');
    expect(dumpFailure('ERROR: null root node returned by UiTestAutomationBridge.\n')).toBe('null_root');
    expect(
      dumpFailure(
        'java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@2b6f0b5already registered!\n',
      ),
    ).toBe('registered');
    expect(dumpFailure(`UI hierchary dumped to: /x.xml\n${fixture('ui-instagram-feed.xml')}`)).toBeNull();
  });

  it('reads the keyguard from dumpsys window policy, line by line', () => {
    // The KeyguardServiceDelegate block of a public Android 9 dump (unlocked, no credential).
    const unlocked = [
      '    KeyguardServiceDelegate',
      '      showing=false',
      '      showingAndNotOccluded=true',
      '      inputRestricted=false',
      '      occluded=false',
      '      secure=false',
      '      KeyguardStateMonitor',
      '        mIsShowing=false',
    ].join('\n');
    expect(parseLockState(unlocked)).toBe('unlocked');
    expect(parseLockState(unlocked.replace('showing=false', 'showing=true'))).toBe('locked');
    expect(parseLockState(unlocked.replace('showing=false', 'showing=true').replace('secure=false', 'secure=true'))).toBe('locked_secure');
    // showingAndNotOccluded=true alone is no lock; older builds say mDreamingLockscreen.
    expect(parseLockState('    mShowingDream=false mDreamingLockscreen=true\n')).toBe('locked');
    expect(parseLockState('    mShowingDream=false mDreamingLockscreen=false\n')).toBe('unlocked');
  });

  it('reads content query rows and builds media URIs', () => {
    // As `adb shell content query` prints media rows (an AndroidWorld evaluation test records this output).
    expect(parseContentRows('Row: 18 title=Song B, duration=240000, _size=10, _display_name=b.mp3\nRow: 37 title=Song A, duration=180000\n')).toEqual([
      { title: 'Song B', duration: '240000', _size: '10', _display_name: 'b.mp3' },
      { title: 'Song A', duration: '180000' },
    ]);
    expect(parseContentRows('No result found.\n')).toEqual([]);
    expect(mediaStorePath('/sdcard/DCIM/Farm/pier.jpg')).toBe('/storage/emulated/0/DCIM/Farm/pier.jpg');
    expect(mediaUri('42', 'image/jpeg')).toBe('content://media/external/images/media/42');
    expect(mediaUri('43', 'video/mp4')).toBe('content://media/external/video/media/43');
    expect(mediaUri('44', 'application/pdf')).toBe('content://media/external/file/44');
  });

  it('reads the focused field of a dump', () => {
    const xml = fixture('ui-instagram-caption.xml');
    expect(focusedText(xml)).toBeNull();
    const focused = xml.replace(/(resource-id="com\.instagram\.android:id\/caption_input_text_view"[^>]*?)focused="false"/, '$1focused="true"');
    expect(focusedText(focused)).toBe('Add a caption...');
    expect(focusedText(focused.replace('text="Add a caption..."', 'text="a &amp; b&#10;c"'))).toBe('a & b\nc');
  });

  it('reads a focused text Android wrote in single quotes (it holds a double quote), entities undone', () => {
    // real/instagram/comments-quoting.xml: the comment box holds `Love this "golden hour" & the pier`.
    expect(focusedText(fixture('real/instagram/comments-quoting.xml'))).toBe('Love this "golden hour" & the pier');
    const caption = fixture('ui-instagram-caption.xml').replace(
      /text="Add a caption..."([^>]*?)focused="false"/,
      `text='"Don&apos;t" &lt;3&#10;🌅'$1focused="true"`,
    );
    expect(focusedText(caption)).toBe('"Don\'t" <3\n🌅');
    expect(focusedText('')).toBeNull();
  });
});
