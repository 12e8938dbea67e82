import { toast } from '../../shared/toast';

/** The toast after asking the person in control of a phone to hand it over (the live screen and group control). */
export function toastAskSent(controllerName: string | null | undefined): void {
  toast('Request sent', `${controllerName ?? 'The person in control'} is asked to hand the phone over.`);
}
