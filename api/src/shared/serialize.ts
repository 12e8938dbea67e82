export { serialize } from '@farm/sql';
