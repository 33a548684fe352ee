#!/usr/bin/env node
// Validates recorded HTTP exchanges against openapi.yaml with ajv in strict
// mode: the JSON Schema validator that most JavaScript OpenAPI tools
// (express-openapi-validator, Redocly's and Spectral's example checks) are
// built on. The Go tests record their exchanges (ADCAMP_OPENAPI_EXCHANGES),
// and the TypeScript client's tests use this module directly.
//
//   node scripts/openapi-ajv.mjs openapi.yaml exchanges.jsonl...
//
// Each line of an exchanges file is {"method", "path" (as in the document:
// /campaigns/{campaign_id}), "status", "headers", "body", "request_body"?}.
// The document's schemas are converted by the letter of OpenAPI 3.0.3, as
// internal/openapischema does for Go: nullable adds "null" to the type
// beside it (and is an error without one), boolean exclusive bounds become
// numeric, example is dropped; any other keyword ajv does not know fails.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Converts an OpenAPI 3.0.3 Schema Object to JSON Schema (draft-07). */
export function convert(schema, where) {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    throw new Error(`${where}: a schema must be an object`);
  }
  if ("$ref" in schema) {
    if (Object.keys(schema).length !== 1) {
      throw new Error(`${where}: $ref with siblings, which OpenAPI 3.0 ignores`);
    }
    const name = schema.$ref.replace(/^#\/components\/schemas\//, "");
    if (name === schema.$ref) throw new Error(`${where}: $ref ${schema.$ref} is not to components.schemas`);
    return { $ref: `#/definitions/${name}` };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    const at = `${where}/${k}`;
    if (k === "properties") {
      out.properties = Object.fromEntries(Object.entries(v).map(([n, p]) => [n, convert(p, `${at}/${n}`)]));
    } else if (k === "items" || k === "not" || (k === "additionalProperties" && typeof v === "object")) {
      out[k] = convert(v, at);
    } else if (k === "allOf" || k === "anyOf" || k === "oneOf") {
      out[k] = v.map((s, i) => convert(s, `${at}/${i}`));
    } else if (k === "example" || k === "externalDocs" || k === "nullable" || k.startsWith("x-")) {
      // dropped, or handled below
    } else if (k === "exclusiveMinimum" || k === "exclusiveMaximum") {
      if (typeof v !== "boolean") throw new Error(`${at}: must be a boolean in OpenAPI 3.0`);
    } else {
      out[k] = v; // ajv's strict mode refuses what it does not know
    }
  }
  for (const [excl, incl] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]]) {
    if (schema[excl] === true) {
      if (!(incl in out)) throw new Error(`${where}: ${excl} without ${incl}`);
      out[excl] = out[incl];
      delete out[incl];
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type !== "string") {
      throw new Error(`${where}: nullable without type, which OpenAPI 3.0.3 ignores (null stays invalid)`);
    }
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** Loads an OpenAPI document (YAML or JSON) from a file. */
export function loadDocument(file) {
  return parse(readFileSync(file, "utf8"));
}

/**
 * Returns a validator for the operations of doc: response(method, path,
 * status, bodyText) and request(method, path, bodyText) return a list of
 * problems, empty when the body is valid.
 */
export function createValidator(doc) {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  const inRange = (lo, hi) => ({ type: "number", validate: (n) => Number.isInteger(n) && n >= lo && n <= hi });
  ajv.addFormat("int32", inRange(-(2 ** 31), 2 ** 31 - 1));
  ajv.addFormat("int64", inRange(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("float", { type: "number", validate: () => true });
  ajv.addFormat("double", { type: "number", validate: () => true });
  const definitions = {};
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
    definitions[name] = convert(s, `#/components/schemas/${name}`);
  }
  ajv.addSchema({ $id: "openapi", definitions });
  for (const name of Object.keys(definitions)) ajv.getSchema(`openapi#/definitions/${name}`); // compile all now

  const resolve = (obj) => {
    if (!obj?.$ref) return obj;
    let cur = doc;
    for (const part of obj.$ref.replace(/^#\//, "").split("/")) cur = cur?.[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    if (!cur) throw new Error(`unresolved ${obj.$ref}`);
    return cur;
  };
  const compiled = new Map();
  const check = (schema, key, text) => {
    if (!compiled.has(key)) {
      const conv = convert(schema, key);
      compiled.set(key, ajv.compile({ definitions, ...conv }));
    }
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return [`body is not JSON: ${e.message}`];
    }
    const validate = compiled.get(key);
    return validate(value) ? [] : validate.errors.map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  };
  const operation = (method, path) => {
    const op = doc.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method} ${path} is not in the document`);
    return op;
  };
  return {
    response(method, path, status, text) {
      const r = operation(method, path).responses?.[String(status)];
      if (!r) return [`status ${status} is not documented for ${method} ${path}`];
      const schema = resolve(r).content?.["application/json"]?.schema;
      if (!schema || method.toUpperCase() === "HEAD") return [];
      return check(schema, `${method} ${path} ${status}`, text);
    },
    request(method, path, text) {
      const rb = resolve(operation(method, path).requestBody);
      const schema = rb?.content?.["application/json"]?.schema;
      if (!schema) return text ? [`${method} ${path} documents no JSON request body`] : [];
      return check(schema, `${method} ${path} request`, text);
    },
  };
}

function main(args) {
  const [docFile, ...files] = args;
  if (!docFile || files.length === 0) {
    console.error("usage: node scripts/openapi-ajv.mjs openapi.yaml exchanges.jsonl...");
    process.exit(2);
  }
  const v = createValidator(loadDocument(docFile));
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    lines.forEach((line, i) => {
      const x = JSON.parse(line);
      const problems = v.response(x.method, x.path, x.status, x.body);
      if (x.request_body) problems.push(...v.request(x.method, x.path, x.request_body).map((p) => `request: ${p}`));
      if (problems.length === 0) {
        passed++;
        return;
      }
      failed++;
      console.error(`${file}:${i + 1}: ${x.method} ${x.path} ${x.status}:\n  ${problems.join("\n  ")}\n  ${x.body.slice(0, 400)}`);
    });
  }
  console.log(`ajv (strict) over recorded exchanges: ${passed} passed, ${failed} failed`);
  if (failed > 0 || passed === 0) process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
