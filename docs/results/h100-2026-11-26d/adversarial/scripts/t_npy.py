from h import *
import struct
f32 = np.float32
def raw(dict_text, data, major=1, pad=True, nl=True):
    h = dict_text
    pre = 10 if major == 1 else 12
    if pad:
        while (pre + len(h) + 1) % 64: h += ' '
    if nl: h += '\n'
    hb = h.encode('latin1')
    b = b'\x93NUMPY' + bytes([major, 0]) + (struct.pack('<H', len(hb)) if major == 1 else struct.pack('<I', len(hb))) + hb + data
    return b
def hdr(descr, fortran='False', shape='(3,)'):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
ones3 = np.ones(3, f32).tobytes()
cases = [
    ('f64', np.ones(3), 2), ('>f4', np.ones(3, '>f4'), 2), ('>i4', np.ones(3, '>i4'), 2), ('>u4', np.ones(3, '>u4'), 2),
    ('f16', np.ones(3, np.float16), 2), ('i8', np.ones(3, np.int64), 2), ('i16', np.ones(3, np.int16), 2), ('u16', np.ones(3, np.uint16), 2),
    ('i8bit', np.ones(3, np.int8), 2), ('bool', np.ones(3, bool), 2), ('c64', np.ones(3, np.complex64), 2), ('U', np.array(['a', 'b']), 2),
    ('struct', np.zeros(3, dtype=[('a', '<f4')]), 2), ('u64', np.ones(3, np.uint64), 2),
    ('object', raw(hdr("'|O'"), b'\x80\x04N.'), 2),
    ('fortran 2d', raw(hdr("'<f4'", 'True', '(2, 2)'), np.ones(4, f32).tobytes()), 2),
    ('fortran 1d', raw(hdr("'<f4'", 'True', '(3,)'), ones3), 0),
    ('0-d', np.array(3.0, f32), 0),
    ('truncated', raw(hdr("'<f4'"), ones3[:-1]), 2),
    ('trailing', raw(hdr("'<f4'"), ones3 + b'\0'), 2),
    ('shape lies big', raw(hdr("'<f4'", 'False', '(100,)'), ones3), 2),
    ('shape lies small', raw(hdr("'<f4'", 'False', '(2,)'), ones3), 2),
    ('huge header len', b'\x93NUMPY\x02\x00' + struct.pack('<I', 0xffffffff) + b'{}', 2),
    ('header len beyond file', b'\x93NUMPY\x01\x00' + struct.pack('<H', 60000) + b"{'descr'", 2),
    ('no newline', raw(hdr("'<f4'"), ones3, nl=False), 0),
    ('unpadded', raw(hdr("'<f4'"), ones3, pad=False), 0),
    ('v2', raw(hdr("'<f4'"), ones3, major=2), 0),
    ('v3', raw(hdr("'<f4'"), ones3, major=3), 0),
    ('v4', b'\x93NUMPY\x04\x00' + raw(hdr("'<f4'"), ones3)[8:], 2),
    ('empty file', b'', 2), ('garbage', b'hello world, not npy', 2),
    ('shape negative', raw(hdr("'<f4'", 'False', '(-3,)'), ones3), 2),
    ('shape float', raw(hdr("'<f4'", 'False', '(3.0,)'), ones3), 2),
    ('shape huge', raw(hdr("'<f4'", 'False', '(4611686018427387904,)'), ones3), 2),
    ('shape 2^62x4', raw(hdr("'<f4'", 'False', '(4611686018427387904, 4)'), b''), 2),
    ('shape with 0 and huge', raw(hdr("'<f4'", 'False', '(0, 99999999999999999999)'), b''), 2),
    ('descr f4 (native)', raw(hdr("'f4'"), ones3), None),
    ('descr =f4', raw(hdr("'=f4'"), ones3), None),
    ('descr <f4 bytes', raw(hdr("b'<f4'"), ones3), None),
    ('fortran as 1', raw(hdr("'<f4'", '1'), ones3), 2),
    ('fortran None', raw(hdr("'<f4'", 'None'), ones3), 2),
    ('nul in header', raw(hdr("'<f4'").replace(' }', '\0}'), ones3), 2),
    ('unicode in header', raw(hdr("'<f4'").replace("'shape'", "'shäpe'"), ones3), 2),
    ('shape list', raw(hdr("'<f4'", 'False', '[3]'), ones3), 2),
    ('shape 3L', raw(hdr("'<f4'", 'False', '(3L,)'), ones3), None),
    ('shape (+3,)', raw(hdr("'<f4'", 'False', '(+3,)'), ones3), None),
    ('shape (0x3,)', raw(hdr("'<f4'", 'False', '(0x3,)'), ones3), 2),
    ('shape (3_0,)', raw(hdr("'<f4'", 'False', '(3_0,)'), ones3), 2),
    ('shape ( 3 , )', raw(hdr("'<f4'", 'False', '( 3 , )'), ones3), 0),
    ('shape (1,1,3)', raw(hdr("'<f4'", 'False', '(1,1,3)'), ones3), 0),
    ('shape (03,)', raw(hdr("'<f4'", 'False', '(03,)'), ones3), None),
    ('shape (True,)', raw(hdr("'<f4'", 'False', '(True,)'), ones3), 2),
    ('escape in str', raw(hdr("'<\\x66' '4'"), ones3), None),
]
res = {}
for name, data, exp in cases:
    p = os.path.join(TMP, name.replace(' ', '_') + '.npy')
    if isinstance(data, bytes):
        open(p, 'wb').write(data)
    else:
        np.save(p, data)
    out = os.path.join(TMP, 'o.npy')
    if os.path.exists(out): os.remove(out)
    pr = subprocess.run([BIN, 'run', 'reduce', '--backend', 'cpu', p, '-o', out], capture_output=True, text=True)
    err = pr.stderr.strip()
    val = np.load(out) if pr.returncode == 0 else None
    bad = 'panick' in err or '\n' in err or pr.returncode not in (0, 1, 2) or (exp is not None and pr.returncode != exp)
    if pr.returncode == 0 and val is not None and val.dtype == f32 and val[0] != 3.0: bad = True
    print(('FAIL ' if bad else '  ok ') + f'{name}: rc={pr.returncode} {err[:160]} {val}')
    if bad: FAILS.append(name)
# directory, fifo, missing, stdin
for p in ['/tmp', '/nonexistent.npy', '/dev/null', '/proc/self/status']:
    pr = subprocess.run([BIN, 'run', 'reduce', '--backend', 'cpu', p], capture_output=True, text=True)
    print(f'   {p}: rc={pr.returncode} {pr.stderr.strip()[:150]}')
    if 'panick' in pr.stderr or pr.returncode not in (1, 2): FAILS.append(p)
summary()
