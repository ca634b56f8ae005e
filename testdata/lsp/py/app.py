def double(x: int) -> int:
    return x * 2


result: str = double(4)
