import { makeCircle, Logger, Circle } from './models.js';
import * as m from './models';

namespace Util {
  export function twice(x: number): number {
    return m.square(x) * 2;
  }
}

function report(c: Circle): string {
  return c.describe();
}

const c = makeCircle(2);
c.area();
report(c);
const l: Logger = new Logger();
l.write('x');
Util.twice(3);
makeCircle(1)!.describe();

class Svc {
  private logger: Logger;

  constructor() {
    this.logger = new Logger();
  }

  run(): void {
    this.logger.write('run');
  }
}
