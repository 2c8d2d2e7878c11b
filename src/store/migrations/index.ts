// Every migration, in order. Names sort lexicographically; never rename one.
import * as m001 from './001_core.js';

export const migrations = {
  '001_core': m001,
};
