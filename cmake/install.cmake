# SPDX-License-Identifier: MIT
# `cmake --install` (or `make install`; PREFIX and DESTDIR honoured): the static and shared
# library, the public headers under include/npukit, the CLI, the LD_PRELOAD shim, the KohakuTPU
# presets under share/npukit (found at run time relative to the installed programs), a CMake
# package (find_package(npukit) -> npukit::npukit) and a pkg-config file.
include(CMakePackageConfigHelpers)

# Every rule names its component (`cmake --install --component`); the Debian packages
# (debian/*.install) follow the same split: lib -> libnpukit0, dev -> libnpukit-dev,
# cli -> npukit, rknn -> npukit-rknn, sim -> npukit-sim, ggml -> ggml-backend-npukit.
install(TARGETS npukit_lib npukit_shared EXPORT npukitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib)
# The public headers, by why a program needs each. The others in include/npukit are the
# library's own: not installed, and their functions are not exported
# (tests/exports/check_exports.sh). test_headers holds the installed set equal to the entry
# points below and what they include, so neither a stray header nor a missing include passes.
#   the runtime and driver API a program calls: the RK runtime, its CPU reference and
#   simulator, fp16 helpers, the KohakuTPU driver, simulator, remote machines and server;
#   kt_open.h opens a machine from a spec string (kt_open_spec; examples/kt_enumerate.c)
set(NPUKIT_API_HEADERS rk.h rk_reference.h rksim.h fp16.h kt.h ktsim.h kt_remote.h kt_serve.h
    kt_open.h)
#   where the library's own messages go (npk_set_log: level, sink)
list(APPEND NPUKIT_API_HEADERS log.h)
#   the kernels' uAPI a plain rknpu or rocket program builds against (run under the shim)
list(APPEND NPUKIT_API_HEADERS rknpu_uapi.h rocket_uapi.h)
#   RK programs below the runtime, the calls behind `npukit rk synth / decode / diff / plan`:
#   synthesis, decoding and diffing regcmd programs, the planner; the Python package
#   (python/npukit/_lib.py) and the ggml backend (ggml/npg_*.c) call them
list(APPEND NPUKIT_API_HEADERS rk_synth.h rk_decode.h rk_plan.h)
#   KohakuTPU below kt.h, the calls behind `npukit kt move / prog / rv64 run`: memory mover
#   moves, host control programs, RV64 images; the Python package (_ktlib.py) calls them
list(APPEND NPUKIT_API_HEADERS kt_mover.h kt_hostprog.h kt_rv64_load.h)
#   booting and running the RV32 control processor, from the host or the control-program engine
#   (`npukit kt rv32 run`; the Python package's Card.rv32_run)
list(APPEND NPUKIT_API_HEADERS kt_rv32.h)
#   the vector core's CU words and kernel words (kt_vec.h), and the elementwise kernels behind
#   `npukit kt vec` (kt_vec_job.h); the Python package (_ktlib.py) calls the latter
list(APPEND NPUKIT_API_HEADERS kt_vec.h kt_vec_job.h)
#   the other unit types' instructions, one header each: saxpy (`npukit kt saxpy`), the matmul
#   cluster (`npukit kt matmul`), the test unit; the Python package calls the encoders
list(APPEND NPUKIT_API_HEADERS kt_saxpy.h kt_mat.h kt_test_unit.h)
#   a KohakuTPU compute-unit model written outside the library: the unit-type row and what a unit
#   calls on its shell (ksim_unit_register; docs/kt-units.md)
list(APPEND NPUKIT_API_HEADERS ktsim_unit.h)
# Included by those, and public because their declarations are the types and helpers those
# calls take and return: status codes and the export macro; RK types, SDP and output-stage
# rows, SoC rows (rk_soc.h), regcmd entries and the register table (rk_regs.h, rk_regs.def);
# KohakuTPU flits, registers and words, the transport contract, the board description, the
# mover's hardware description.
set(NPUKIT_INCLUDED_HEADERS export.h status.h rk_types.h rk_sdp_hw.h rk_act_hw.h rk_outstage.h rk_soc.h
    rk_regcmd.h rk_regs.h rk_regs.def kt_flit.h kt_regs.h kt_words.h kt_transport.h kt_board.h
    kt_mover_hw.h)
set(NPUKIT_PUBLIC_HEADERS ${NPUKIT_API_HEADERS} ${NPUKIT_INCLUDED_HEADERS})
add_test(NAME test_headers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/exports/check_headers.sh
         ${CMAKE_CURRENT_SOURCE_DIR}/include/npukit ${NPUKIT_API_HEADERS} --
         ${NPUKIT_INCLUDED_HEADERS})
list(TRANSFORM NPUKIT_PUBLIC_HEADERS PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/include/npukit/)
install(FILES ${NPUKIT_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit
        COMPONENT dev)
install(FILES ${NPUKIT_GENERATED_INCLUDE}/npukit/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/npukit COMPONENT dev)
install(TARGETS npukit RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
# (the shim installs itself in rksim_shim.cmake: lib/npukit/librksim_shim.so)
# The presets are read by the library (ktsim_preset_load), so they travel with it.
install(DIRECTORY data/kt DESTINATION ${CMAKE_INSTALL_DATADIR}/npukit COMPONENT lib)
# The documentation keeps the source tree's layout (DOCDIR/README.md, DOCDIR/docs/*.md,
# DOCDIR/python/README.md), so README's and the docs' relative links resolve where they are
# installed (scripts/check_install.sh follows every one).
install(FILES LICENSE README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT cli
        FILES_MATCHING PATTERN "*.md")
install(FILES python/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/python COMPONENT cli)

set(NPUKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/npukit)
install(EXPORT npukitTargets NAMESPACE npukit:: DESTINATION ${NPUKIT_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/in/npukitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/npukitConfig.cmake INSTALL_DESTINATION ${NPUKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/npukitConfig.cmake ${CMAKE_BINARY_DIR}/npukitConfigVersion.cmake
        DESTINATION ${NPUKIT_CMAKE_DIR} COMPONENT dev)

# pkg-config: static linking needs the libraries libnpukit.a uses (Libs.private).
set(NPUKIT_PC_LIBS_PRIVATE "")
foreach(lib ${NPUKIT_CJSON_LIB} ${NPUKIT_XXHASH_LIB})
  get_filename_component(name ${lib} NAME_WE)
  string(REGEX REPLACE "^lib" "-l" flag ${name})
  string(APPEND NPUKIT_PC_LIBS_PRIVATE "${flag} ")
endforeach()
string(APPEND NPUKIT_PC_LIBS_PRIVATE "-lpthread -lm ${CMAKE_DL_LIBS}")
string(REPLACE ";" " " NPUKIT_PC_LIBS_PRIVATE "${NPUKIT_PC_LIBS_PRIVATE}")
string(REGEX REPLACE " dl$" " -ldl" NPUKIT_PC_LIBS_PRIVATE "${NPUKIT_PC_LIBS_PRIVATE}")
# Where the .pc files say the tree is. A package's (NPUKIT_DEB) is the absolute prefix it
# installs to (/usr): pkg-config puts PKG_CONFIG_SYSROOT_DIR in front of -I and -L when a
# program is built against an unpacked or cross root, and the rknn rpath below is written out
# literally, since pkg-config would prefix a ${libdir} there too and bake the build machine's
# sysroot into a board's binary. A plain install's is relative to the .pc file itself
# (${pcfiledir}), so the tree can move or be used staged in DESTDIR (scripts/check_install.sh
# builds and runs against such a staged copy).
if(NPUKIT_DEB)
  set(NPUKIT_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
  set(NPUKIT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(NPUKIT_PC_RKNN_RPATH ${CMAKE_INSTALL_FULL_LIBDIR}/npukit/rknn)
else()
  file(RELATIVE_PATH up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
  string(REGEX REPLACE "/$" "" up "${up}")
  set(NPUKIT_PC_PREFIX "\${pcfiledir}/${up}")
  # libdir is the .pc file's parent: one step up rather than to the prefix and down again.
  set(NPUKIT_PC_LIBDIR "\${pcfiledir}/..")
  set(NPUKIT_PC_RKNN_RPATH "\${libdir}")
endif()
# npukit.pc links the shared library (its Libs.private serve `--static` for whoever also passes
# -static); npukit-static.pc names libnpukit.a itself, since `-lnpukit` picks libnpukit.so
# whenever both are in the directory, whatever `pkg-config --static` adds.
foreach(pc npukit npukit-static)
  configure_file(cmake/in/${pc}.pc.in ${CMAKE_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT dev)
endforeach()

# libnpukit.so exports exactly the functions and objects the installed headers declare with
# NPUKIT_API, and each of those is defined in the library.
add_test(NAME test_exports COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/exports/check_exports.sh
         ${CMAKE_NM} $<TARGET_FILE:npukit_shared> ${NPUKIT_GENERATED_INCLUDE}/npukit/version.h
         ${NPUKIT_PUBLIC_HEADERS})
