/**
 * A named shape.
 */
export class Shape {
  constructor(name) {
    this.n = name;
  }

  area() {
    return 0;
  }

  describe() {
    return this.name() + ': ' + this.area();
  }

  name() {
    return this.n;
  }
}

export class Square extends Shape {
  constructor(side) {
    super('square');
    this.side = side;
  }

  area() {
    return sq(this.side);
  }
}

function sq(x) {
  return x * x;
}

// make builds a square.
export default function make(side) {
  return new Square(side);
}

export const util = {
  twice(x) {
    return sq(x) * 2;
  },
  half: (x) => x / 2,
};
