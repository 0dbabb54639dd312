export interface Shape {
  area(): number;
}

export class Logger {
  write(msg: string): void {
    console.log(msg);
  }
}

export abstract class Base {
  constructor(protected readonly log: Logger) {}

  abstract area(): number;

  describe(): string {
    this.log.write('describe');
    return `${this.area()}`;
  }
}

export class Circle extends Base implements Shape {
  constructor(log: Logger, private r: number) {
    super(log);
  }

  area(): number {
    return square(this.r) * 3;
  }
}

export function square(x: number): number {
  return x * x;
}

export function makeCircle(r: number): Circle {
  return new Circle(new Logger(), r);
}
