'use strict';

function helper(a) {
  return a + 1;
}

module.exports = {
  helper,
  run: function () {
    return helper(1);
  },
};
