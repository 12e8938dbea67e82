/** The demo operator: prefilled on the login form only when demo mode is on. */
export const DEMO_CREDENTIALS = { email: 'operator@demo.farm', password: 'demo-operator' } as const;

/** The demo VAs' password. */
export const DEMO_VA_PASSWORD = 'demo-assistant';

/**
 * Passwords anyone can read in this repository: never a password in production, where DEMO=1 needs DEMO_PASSWORD,
 * which may not be one of them.
 */
export const PUBLISHED_DEMO_PASSWORDS: readonly string[] = [DEMO_CREDENTIALS.password, DEMO_VA_PASSWORD];
