// gen09's reporter for jasmine 3 and later (`jasmine --reporter=THIS`): jasmine has no
// machine-readable reporter of its own. It writes the shape of mocha's json reporter (tests,
// pending, failures, passes; each with title, fullTitle, file, duration, err) to
// $GEN09_REPORT when the run ends, read by gen09_reports.py as format "mocha-json". A spec's
// or suite's file is the one that called `it` or `describe` (jasmine 3 names none; jasmine-core
// 4 and later name the caller of its caller, which is now this reporter's wrapper).
// A failed expectation's message is the matcher's ("Expected 1 to be 2."); an error a spec
// threw keeps its stack. A suite's or the run's own failure (an `afterAll` that threw, a spec
// file that did not load) is a failure that is no test.
'use strict';
const fs = require('fs');
const path = require('path');

const fileOf = new Map(); // spec or suite id -> the file that defined it

function callerFile() {
  const lines = String(new Error().stack).split('\n').slice(1);
  for (const line of lines) {
    const found = /\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?\s*$/.exec(line);
    if (found && !found[1].includes(`${path.sep}node_modules${path.sep}`) && found[1] !== __filename) {
      return found[1].replace(/^file:\/\//, '');
    }
  }
  return '';
}

function recordFiles() {
  for (const name of ['it', 'fit', 'xit', 'describe', 'fdescribe', 'xdescribe']) {
    const original = global[name];
    if (typeof original !== 'function' || original.gen09) continue;
    const wrapped = function (...args) {
      const made = original.apply(this, args);
      if (made && made.id !== undefined) fileOf.set(made.id, callerFile());
      return made;
    };
    wrapped.gen09 = true;
    global[name] = wrapped;
  }
}

function err(expectations = []) {
  if (!expectations.length) return {};
  const message = expectations.map((e) => String(e.message || '')).join('\n');
  // a matcher's failure says it all; its stack starts with the same "Error: " as a thrown error's
  const [first] = expectations;
  return { message, stack: first.matcherName ? '' : String(first.stack || '') };
}

function Gen09JasmineJson() {
  const seen = { tests: [], pending: [], failures: [], passes: [] };
  const started = new Map();
  recordFiles();
  const entry = (result, title) => ({
    title, fullTitle: result.fullName, file: fileOf.get(result.id) || result.filename || '',
    duration: result.duration ?? Date.now() - (started.get(result.id) || Date.now()),
    err: err(result.failedExpectations),
  });
  this.jasmineStarted = () => recordFiles();
  this.specStarted = (result) => started.set(result.id, Date.now());
  this.specDone = (result) => {
    const test = entry(result, result.description);
    seen.tests.push(test);
    if (result.status === 'failed') seen.failures.push(test);
    else if (result.status === 'passed') seen.passes.push(test);
    else seen.pending.push(test); // pending, or excluded by a focused spec elsewhere
  };
  this.suiteDone = (result) => {
    if ((result.failedExpectations || []).length) seen.failures.push(entry(result, result.description));
  };
  this.jasmineDone = (result) => {
    if ((result.failedExpectations || []).length) {
      seen.failures.push(entry({ ...result, fullName: '(top level)' }, '(top level)'));
    }
    fs.writeFileSync(process.env.GEN09_REPORT, JSON.stringify(seen, null, 2));
  };
}

module.exports = Gen09JasmineJson;
