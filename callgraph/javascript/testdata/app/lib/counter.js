const { helper } = require('./legacy.cjs');
const legacy = require('./legacy.cjs');

class Logger {
  write(msg) {
    console.log(msg);
  }
}

class Counter {
  constructor() {
    this.n = 0;
    this.log = new Logger();
  }

  inc() {
    this.n = helper(this.n);
    this.log.write('inc ' + legacy.run());
    return this.n > 10 ? 'big' : 'small';
  }
}

module.exports = Counter;
