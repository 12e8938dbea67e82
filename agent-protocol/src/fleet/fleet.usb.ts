/**
 * The host's USB tree as Linux shows it in sysfs: which controller and which hubs each phone hangs on, and warnings
 * where a controller or the host carries more phones than such hardware keeps reliably (PHONE_AUTOMATION.md: 8–12
 * phones per Intel chipset controller, 25–32 per xHCI controller, about 28 per farm PC).
 *
 * Layout read (kernel `Documentation/ABI/stable/sysfs-bus-usb`, `Documentation/ABI/testing/sysfs-bus-usb`):
 * `/sys/bus/usb/devices/` links every USB device by its port path — `usbN` for bus N's root hub, `N-P[.P…]` for a
 * device on port P (dots for ports of hubs below), `…:C.I` for interfaces (skipped). A device has `serial`,
 * `product`, `idVendor`, `idProduct`, `bDeviceClass` (`09` for a hub) and `maxchild` (a hub's ports). A root hub's
 * link resolves into its controller's directory (`/sys/devices/pci0000:00/0000:00:14.0/usb1`), whose `class` is the
 * PCI class (`0x0c0330` xHCI, `0x0c0320` EHCI, `0x0c0310` OHCI, `0x0c0300` UHCI), `vendor` the PCI vendor (`0x8086`
 * Intel) and `driver` a link to its driver (`xhci_hcd`). adb names a USB phone by the same serial string.
 *
 * Hubs are named as uhubctl's `-l` takes them, which is not sysfs's name for a root hub: uhubctl builds a hub's
 * location from libusb's bus number and port numbers (`get_hub_info` in mvp/uhubctl's uhubctl.c: `snprintf(location,
 * …, "%d", bus)`, then `-%d` for the first port and `.%d` for each further one), so the root hub of bus 1 is `1`,
 * never `usb1`. A phone on a motherboard port hangs on `1`, port N.
 */
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Intel chipset controllers are the PCH's own xHCI (PCI bus 00, vendor 0x8086): their shared bandwidth and endpoint
 * budget is what gives out first. Other xHCI controllers (add-in cards, other vendors' chipsets) hold more.
 */
export type UsbControllerKind = 'intel_chipset' | 'xhci' | 'other';

export interface UsbController {
  /** The controller's device name: a PCI address (`0000:00:14.0`) or a platform device's name. */
  id: string;
  kind: UsbControllerKind;
  vendorId: string | null;
  deviceId: string | null;
  driver: string | null;
  /** The USB buses it serves (an xHCI controller has one for USB 2 and one for USB 3). */
  buses: number[];
}

export interface UsbHub {
  /** Port path as uhubctl's `-l` takes it: `1-2`, `1-2.4`; the bus number (`1`) for a root hub. */
  location: string;
  product: string | null;
  vendorId: string | null;
  productId: string | null;
  ports: number | null;
}

export interface UsbPhonePlace {
  serial: string;
  /** The device's own port path (`1-2.3`). */
  path: string;
  bus: number;
  controllerId: string;
  /** The hub it is plugged into (`1-2`), the bus number (`1`) when straight on the controller, and the port there. */
  hubLocation: string;
  port: number;
  /** Every hub between it and the controller, the root hub first. */
  hubs: string[];
}

export interface UsbTree {
  controllers: UsbController[];
  hubs: UsbHub[];
  /** Every device that has a serial (phones and anything else); match them to adb's serials. */
  devices: UsbPhonePlace[];
}

async function readText(path: string): Promise<string | null> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return null;
  }
}

function controllerKind(pciClass: string | null, vendorId: string | null, id: string, driver: string | null): UsbControllerKind {
  const xhci = pciClass?.toLowerCase() === '0x0c0330' || driver === 'xhci_hcd' || driver === 'xhci-hcd';
  if (!xhci) return 'other';
  return vendorId?.toLowerCase() === '0x8086' && /^[0-9a-f]{4}:00:/i.test(id) ? 'intel_chipset' : 'xhci';
}

/** The hub a port path hangs on, in uhubctl's words: `1-2.3` → `1-2`, `1-2` → `1` (bus 1's root hub). */
function parentOf(path: string): string {
  const [bus = '', ports = ''] = path.split('-');
  const dot = ports.lastIndexOf('.');
  return dot === -1 ? bus : `${bus}-${ports.slice(0, dot)}`;
}

/**
 * A hub location as uhubctl takes it: sysfs's `usbN` for a root hub becomes `N` (settings saved before this was
 * fixed said `usb1`); anything else is kept as given, trimmed.
 */
export function uhubctlLocation(location: string): string {
  const trimmed = location.trim();
  const root = /^usb(\d+)$/.exec(trimmed);
  return root ? (root[1] ?? trimmed) : trimmed;
}

/** Reads the USB tree under `sysRoot` (`/sys`; tests pass a directory laid out the same way). Empty where there is no USB. */
export async function readUsbTree(sysRoot = '/sys'): Promise<UsbTree> {
  const devicesDir = join(sysRoot, 'bus', 'usb', 'devices');
  let names: string[];
  try {
    names = (await readdir(devicesDir)).filter((name) => !name.includes(':')).sort();
  } catch {
    return { controllers: [], hubs: [], devices: [] };
  }
  const controllers = new Map<string, UsbController>();
  const controllerOfBus = new Map<number, string>();
  const hubs: UsbHub[] = [];
  const devices: UsbPhonePlace[] = [];
  const hubNames = new Set<string>();

  for (const name of names.filter((entry) => /^usb\d+$/.test(entry))) {
    const bus = Number(name.slice(3));
    let controllerDir: string;
    try {
      controllerDir = dirname(await realpath(join(devicesDir, name)));
    } catch {
      continue;
    }
    const id = basename(controllerDir);
    const vendorId = await readText(join(controllerDir, 'vendor'));
    const driverLink = await readlink(join(controllerDir, 'driver')).catch(() => null);
    const driver = driverLink ? basename(driverLink) : null;
    const known = controllers.get(id);
    if (known) known.buses.push(bus);
    else
      controllers.set(id, {
        id,
        kind: controllerKind(await readText(join(controllerDir, 'class')), vendorId, id, driver),
        vendorId,
        deviceId: await readText(join(controllerDir, 'device')),
        driver,
        buses: [bus],
      });
    controllerOfBus.set(bus, id);
    hubNames.add(String(bus));
    hubs.push({
      location: String(bus),
      product: await readText(join(devicesDir, name, 'product')),
      vendorId: null,
      productId: null,
      ports: Number(await readText(join(devicesDir, name, 'maxchild'))) || null,
    });
  }

  for (const name of names.filter((entry) => /^\d+-\d+(\.\d+)*$/.test(entry))) {
    const dir = join(devicesDir, name);
    const bus = Number(name.split('-')[0]);
    if ((await readText(join(dir, 'bDeviceClass'))) === '09') {
      hubNames.add(name);
      hubs.push({
        location: name,
        product: await readText(join(dir, 'product')),
        vendorId: await readText(join(dir, 'idVendor')),
        productId: await readText(join(dir, 'idProduct')),
        ports: Number(await readText(join(dir, 'maxchild'))) || null,
      });
      continue;
    }
    const serial = await readText(join(dir, 'serial'));
    const controllerId = controllerOfBus.get(bus);
    if (!serial || !controllerId) continue;
    const chain: string[] = [];
    for (let at = parentOf(name); ; at = parentOf(at)) {
      chain.unshift(at);
      if (!at.includes('-')) break;
    }
    const ports = name.split('-')[1] ?? '';
    devices.push({
      serial,
      path: name,
      bus,
      controllerId,
      hubLocation: parentOf(name),
      port: Number(ports.split('.').at(-1)),
      hubs: chain,
    });
  }
  return { controllers: [...controllers.values()], hubs: hubs.filter((hub) => hubNames.has(hub.location)), devices };
}

export interface CapacityLimits {
  /** Phones per Intel chipset controller. */
  intelChipset: number;
  /** Phones per other xHCI controller. */
  xhci: number;
  /** Phones per host, whatever their controllers. */
  host: number;
}

export const defaultCapacityLimits: CapacityLimits = { intelChipset: 10, xhci: 25, host: 28 };

export interface CapacityWarning {
  scope: 'controller' | 'host';
  /** The controller's id, or `host`. */
  id: string;
  phones: number;
  limit: number;
  message: string;
}

const kindWords: Record<UsbControllerKind, string> = {
  intel_chipset: 'Intel chipset USB controller',
  xhci: 'xHCI USB controller',
  other: 'USB controller',
};

/** Warnings, each with its reason, for the host's phones (`serials`, as adb lists them) placed on `tree`. */
export function capacityWarnings(tree: UsbTree, serials: readonly string[], limits: CapacityLimits = defaultCapacityLimits): CapacityWarning[] {
  const wanted = new Set(serials);
  const perController = new Map<string, number>();
  for (const device of tree.devices) {
    if (wanted.has(device.serial)) perController.set(device.controllerId, (perController.get(device.controllerId) ?? 0) + 1);
  }
  const warnings: CapacityWarning[] = [];
  for (const controller of tree.controllers) {
    const phones = perController.get(controller.id) ?? 0;
    const limit = controller.kind === 'intel_chipset' ? limits.intelChipset : limits.xhci;
    if (controller.kind === 'other' || phones <= limit) continue;
    warnings.push({
      scope: 'controller',
      id: controller.id,
      phones,
      limit,
      message: `${phones} phones on one ${kindWords[controller.kind]} (${controller.id}); past ${limit} such a controller drops phones. Move some to another controller or a powered hub on an add-in card.`,
    });
  }
  if (serials.length > limits.host) {
    warnings.push({
      scope: 'host',
      id: 'host',
      phones: serials.length,
      limit: limits.host,
      message: `${serials.length} phones on this host; past ${limits.host} a farm PC's USB stops being reliable. Move some to another host.`,
    });
  }
  return warnings;
}
