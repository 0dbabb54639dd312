import make, { Square as Sq, util } from './lib/shapes.js';
import * as lib from './lib/index.js';
import Counter from './lib/counter.js';
import fs from 'fs';

const c = new Counter();
c.inc();
const s = make(3);
s.area();
const sq = new Sq(2);
sq.describe();
util.twice(2);
[1, 2].map((x) => util.half(x));
lib.makeShape(1);
fs.readFileSync('x');

(function () {
  main();
})();

function main() {
  const shape = new lib.Square(5);
  let total = 0;
  for (const x of [1, 2, 3]) {
    if (x > 1 && total < 10) {
      total += shape.area();
    }
  }
  return total ?? 0;
}
