# -*- coding: utf-8 -*-
naïve = "héllo"  # café
π = 3.14
变量 = '中文'
def f(α, β=1): return α
