// dependency-cruiser reads TypeScript through the TypeScript compiler API,
// which TypeScript 7 (the project's compiler, written in Go) no longer
// offers: for the tool alone, `typescript` resolves to TypeScript 5
// (installed as `typescript-5`). Loaded with `node --import`.
import Module, { register } from 'node:module';

const TS = /^typescript(?=$|\/)/;

// ESM imports of the tool.
register(
  'data:text/javascript,' +
    encodeURIComponent(`export function resolve(specifier, context, next) { return next(specifier.replace(${TS}, 'typescript-5'), context); }`),
);

// CommonJS requires (its version check reads typescript/package.json).
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request.replace(TS, 'typescript-5'), ...rest);
};
