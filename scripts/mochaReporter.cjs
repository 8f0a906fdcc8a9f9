// Mocha reporter: the usual spec output, plus the counts written to a JSON file so the test
// runner can print one "N passed, N failed" line across every suite.
const fs = require('node:fs');
const Mocha = require('mocha');

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const out = (options.reporterOptions && options.reporterOptions.out) || process.env.AP_TEST_COUNTS;
    const failures = [];
    runner.on('fail', (test, err) => failures.push({ title: test.fullTitle(), message: String(err && err.message).slice(0, 500) }));
    runner.once('end', () => {
      if (!out) return;
      const stats = runner.stats || {};
      fs.writeFileSync(out, JSON.stringify({ passes: stats.passes || 0, failures: stats.failures || 0, pending: stats.pending || 0, failed: failures }));
    });
  }
}

module.exports = CountingReporter;
