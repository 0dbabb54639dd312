x = f"{d['k']}{f'{y}'}" + f'''{"a" + f"{z}"}'''
print(f"{x:{fmt}}", f"{{literal}}")
